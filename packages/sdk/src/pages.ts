/** What every list of the API answers: a page of items, and a `next` link that is null on the last page. */
export interface ListPage<Item = unknown> {
  data: readonly Item[];
  links: { next?: string | null };
}

export type ItemOf<Page extends ListPage> = Page['data'][number];

/**
 * A list, read a page at a time as it is iterated: `for await (const partner of vouch.partners.list())`
 * walks every item; `.pages()` walks the pages; `.page()` reads the first page (or the one asked for).
 * It follows the API's pagination: the next page number while the answer's `links.next` is not null,
 * with the same filters, `limit` and `sort`.
 */
export class Paginated<Page extends ListPage<Item>, Item = ItemOf<Page>> implements AsyncIterable<Item> {
  constructor(
    private readonly fetchPage: (page: number) => Promise<Page>,
    private readonly firstPage = 1,
  ) {}

  /** One page: the one the list was asked from, or `number`. */
  page(number = this.firstPage): Promise<Page> {
    return this.fetchPage(number);
  }

  async *pages(): AsyncGenerator<Page, void, undefined> {
    for (let number = this.firstPage; ; number++) {
      const page = await this.fetchPage(number);
      yield page;
      if (!page.links.next || page.data.length === 0) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item, read into one array (mind the size of the list). */
  async all(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
