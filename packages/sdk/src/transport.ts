import type { Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.ts';
import { type ListPage, Paginated } from './pages.ts';
import { type Attempt, type Replay, type RetryOptions, withRetry } from './retry.ts';

/** The typed openapi-fetch client of every path of the API, authenticated. */
export type Api = Client<paths>;

type Method = 'get' | 'post' | 'put' | 'delete';
type Operation<P extends keyof paths, M extends Method> = paths[P][M];

/** The query parameters of an operation. */
export type QueryOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The JSON body of an operation. */
export type BodyOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** What the resources call through: one place for retrying, unwrapping and paging. */
export class Transport {
  constructor(
    readonly api: Api,
    private readonly retry: RetryOptions,
  ) {}

  /** The answer's body; a write is sent once unless `replay` says the API replays it. */
  async send<T>(call: () => Promise<Attempt<T>>, replay: Replay = 'once'): Promise<T> {
    return (await withRetry(call, replay, this.retry)).data;
  }

  /** A read: retried on no answer, 429 and 503. */
  read<T>(call: () => Promise<Attempt<T>>): Promise<T> {
    return this.send(call, 'safe');
  }

  /** The `data` of a success envelope. */
  async data<T extends { data: unknown }>(
    call: () => Promise<Attempt<T>>,
    replay: Replay = 'once',
  ): Promise<T['data']> {
    return (await this.send(call, replay)).data;
  }

  /** Answers that carry no data (`{status: 1}`). */
  async done(call: () => Promise<Attempt<unknown>>): Promise<void> {
    await this.send(call);
  }

  list<Page extends ListPage>(
    fetchPage: (page: number) => Promise<Attempt<Page>>,
    firstPage?: number,
  ): Paginated<Page> {
    return new Paginated((page) => this.read(() => fetchPage(page)), firstPage);
  }
}
