import type { ProgramContext } from '../../context.ts';
import type { CustomerRef } from './customers.repository.ts';
import type {
  CustomerTransactionsQuery,
  ListCustomersQuery,
  SearchCustomersQuery,
} from './customers.schemas.ts';
import type { CustomerSalesPage, RenameSales, TakeSales } from './customers.shared.ts';

/**
 * What each program type with customers implements (`customers.<type>.ts`), listed in
 * customers.service.ts. The bodies are the type's own: `Create` and `Update` are the Static types
 * of exactly the variant schemas that validated them, so no behaviour reads an untyped body.
 * Kept apart from customers.shared.ts, which the schemas import: this file imports the schemas.
 */
export interface CustomerBehaviour<Create, Update, Customer, Entry> {
  /** `POST /v1/customers` (and the nested `POST /v1/customer`, flattened before). */
  create(ctx: ProgramContext, body: Create): Promise<Customer>;
  /** `GET /v1/customers/{id}`: `id` is the path segment as sent. */
  get(ctx: ProgramContext, id: string): Promise<Customer>;
  /** One page plus one entry (`paginated()` cuts it). */
  list(ctx: ProgramContext, query: ListCustomersQuery): Promise<Entry[]>;
  search(ctx: ProgramContext, query: SearchCustomersQuery): Promise<Entry[]>;
  /**
   * `PUT /v1/customers/{id}` (`id` given) or `PUT /v1/customers` (identified by the body);
   * `renameSales` writes a new key onto the customer's sales, in the same transaction.
   */
  update(
    ctx: ProgramContext,
    id: string | undefined,
    body: Update,
    renameSales: RenameSales,
  ): Promise<Customer>;
  /**
   * `DELETE /v1/customers/{id}` (`{path}`) or `DELETE /v1/customers` with body `key`/`email`/`id`;
   * `takeSales` takes the customer's own sales back first, in the same transaction.
   */
  remove(ctx: ProgramContext, ref: CustomerRef & { path?: string }, takeSales: TakeSales): Promise<void>;
  /** `GET /v1/customers/{id}/transactions`: which customer, and which page of its sales. */
  transactionsPage(
    ctx: ProgramContext,
    id: string,
    query: CustomerTransactionsQuery,
  ): Promise<CustomerSalesPage>;
}

/** The parts that read no body: the same for every type, so the service may pick by the program. */
export type CustomerReads<Customer, Entry> = Omit<
  CustomerBehaviour<never, never, Customer, Entry>,
  'create' | 'update'
>;
