import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describeEachDatabase, startupBudgetMs, type TestServer } from '../../../test/harness.ts';
import { toolOperations } from '../src/tool-operations.ts';

const repositoryRoot = new URL('../../../', import.meta.url).pathname;

/** An MCP client that started `vouch-mcp` (its TypeScript sources) over stdio for one key. */
async function connect(server: TestServer, apiKey: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--conditions=vouch-source', '--import', 'tsx', 'packages/mcp/src/bin.ts'],
    cwd: repositoryRoot,
    env: { PATH: process.env.PATH ?? '', VOUCH_URL: server.url, VOUCH_API_KEY: apiKey },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'vouch-mcp-test', version: '1.0.0' });
  await client.connect(transport, { timeout: startupBudgetMs() });
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [first] = result.content;
  assert.equal(first?.type, 'text');
  return { isError: result.isError === true, text: first.type === 'text' ? first.text : '' };
}

const parsed = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = await call(client, name, args);
  assert.equal(result.isError, false, result.text);
  return JSON.parse(result.text);
};

const readTools = Object.entries(toolOperations)
  .filter(([, operation]) => operation.access === 'read')
  .map(([name]) => name)
  .sort();

describeEachDatabase('vouch-mcp over stdio', (server) => {
  const clients: Client[] = [];
  after(async () => {
    for (const client of clients) await client.close();
  });

  test('a full-scope key gets every tool; a read tool and a write tool answer what the API holds', async () => {
    const program = await server().newProgram('affiliate');
    const client = await connect(server(), program.token);
    clients.push(client);

    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(toolOperations).sort());
    const createPartner = tools.find((t) => t.name === 'create_partner') ?? assert.fail('create_partner');
    assert.deepEqual(createPartner.inputSchema.required, ['email'], 'the input schema comes from the API');
    assert.ok(createPartner.description && createPartner.description.length > 80);

    const created = await parsed(client, 'create_partner', { email: 'mcp@example.com', name: 'Grace' });
    const stored = await server().request('GET', `/v1/partners/${created.id}`, { token: program.token });
    assert.equal(stored.body.data.email, 'mcp@example.com');
    assert.equal(stored.body.data.name, 'Grace');

    const approved = await parsed(client, 'approve_partner', { id: created.id });
    assert.equal(approved.approved, true);

    const page = await parsed(client, 'list_partners', { limit: 10 });
    const listed = await server().request('GET', '/v1/partners?limit=10', { token: program.token });
    assert.deepEqual(page.data, listed.body.data);

    const sale = await parsed(client, 'record_sale', {
      key: 'mcp-order-1',
      amount: 40,
      action: 'sale',
      customer: { key: 'mcp-buyer', email: 'buyer@example.com', partner: { id: created.id } },
      options: { create_customer: true },
    });
    assert.equal(sale.key, 'mcp-order-1');
    const commissions = await parsed(client, 'list_commissions', {});
    const apiCommissions = await server().request('GET', '/v1/commissions', { token: program.token });
    assert.deepEqual(commissions.data, apiCommissions.body.data);
    assert.equal(commissions.data.length, 1);
    const report = await parsed(client, 'get_report', { metrics: 'sales,revenue', interval: 'month' });
    const apiReport = await server().request(
      'GET',
      '/v1/reports/timeseries?metrics=sales,revenue&interval=month',
      {
        token: program.token,
      },
    );
    assert.equal(apiReport.status, 200, apiReport.text);
    assert.deepEqual(report, apiReport.body.data);
    assert.equal(
      report.reduce((sales, row) => sales + (row.sales ?? 0), 0),
      1,
      'the sale just recorded',
    );
  });

  test('an API error is a tool error carrying the API message; the server goes on', async () => {
    const program = await server().newProgram('affiliate');
    const client = await connect(server(), program.token);
    clients.push(client);
    const invalid = await call(client, 'create_partner', { email: 'not an e-mail' });
    assert.equal(invalid.isError, true);
    assert.match(invalid.text, /^The email field must be a valid email address\. \(HTTP 422\)\n- email: /);
    const missing = await call(client, 'get_partner', { id: 'nobody' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /HTTP 404/);
    const refund = await call(client, 'refund_sale', { key: 'no-such-sale' });
    assert.equal(refund.isError, true);
    assert.equal((await parsed(client, 'get_program')).program.id, program.id, 'still serving');
  });

  test('a read-scope key is offered only the read tools, and a write is refused', async () => {
    const program = await server().newProgram('affiliate');
    const client = await connect(server(), program.readToken);
    clients.push(client);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), readTools);
    assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true));
    const write = await call(client, 'create_partner', { email: 'no@example.com' });
    assert.equal(write.isError, true);
    const partners = await server().request('GET', '/v1/partners', { token: program.token });
    assert.deepEqual(partners.body.data, []);
    assert.equal((await parsed(client, 'get_program')).program.id, program.id);
  });
});
