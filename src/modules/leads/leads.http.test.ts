import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { present } from '../../core/present.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { createWorker } from '../../worker.ts';
import { startReceiver } from '../webhooks/webhooks.test-receiver.ts';

/** A fresh affiliate program with partner `pk` (key `pk`), ready for leads. */
async function programWithPartner(server: TestServer) {
  const p = await server.newProgram('affiliate');
  await listenToEvents(server, p);
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'pk@example.com', key: 'pk', name: 'Pat', surname: 'Kay' },
  });
  assert.equal(partner.status, 201, partner.text);
  return { p, partnerId: partner.body.data.id };
}

const form = [
  { type: 'input', title: 'Company', required: true },
  { type: 'select', title: 'Size', options: ['1-10', '11-50'], required: true },
  { type: 'checkbox', title: 'Interests', options: ['seo', 'ads', 'email'] },
  { type: 'radio', title: 'Plan', options: ['basic', 'pro'] },
  { type: 'countries', title: 'Country' },
  { type: 'textarea', title: 'Notes', description: 'Anything else' },
  { type: 'text', title: 'Intro', text: '<p>Tell us more</p>' },
];

describeEachDatabase('leads', (server) => {
  const req = <const M extends string, const P extends string, K extends ProgramType>(
    p: TestProgram<K>,
    method: M,
    path: P,
    body?: unknown,
  ) => server().request(method, path, { token: p.token, body });
  const setForm = async (p: TestProgram, fields = form) => {
    const res = await req(p, 'PUT', '/v1/leads/details', { leads_custom_form_fields: fields });
    assert.equal(res.status, 200, res.text);
    return res.body.data.leads_custom_form_fields;
  };
  const idOf = (fields: { id: number; title: string }[], title: string) =>
    String(
      present(
        fields.find((f) => f.title === title),
        `field ${title}`,
      ).id,
    );
  const submit = (p: TestProgram, body: Record<string, unknown>) => req(p, 'POST', '/v1/leads', body);
  const newLead = async (p: TestProgram, email = 'lead@example.com') => {
    const res = await submit(p, { name: 'Lee Ad', email, partner: { key: 'pk' } });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };

  test('a new affiliate program has leads on, the program commission and no form', async () => {
    const { p } = await programWithPartner(server());
    const res = await req(p, 'GET', '/v1/leads/details');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      data: {
        leads_enabled: 'true',
        program_leads_commission_type: 'follow_program_settings',
        leads_commission: { currency: 'USD', commission: 20, commission_type: 'percent' },
        leads_custom_form_fields: [],
      },
      status: 1,
    });
  });

  test('a partner submits a lead without any setup: 201 in the spec shape, lead.created recorded', async () => {
    const { p, partnerId } = await programWithPartner(server());
    const res = await submit(p, { name: 'Lee Ad', email: 'lead@example.com', partner: { id: partnerId } });
    assert.equal(res.status, 201, res.text);
    const lead = res.body.data;
    assert.equal(res.body.status, 1);
    assert.ok(Number.isInteger(lead.id));
    assert.match(lead.created_at, /^\d{4}-\d{2}-\d{2}$/);
    assert.deepEqual(
      { ...lead, id: 0, created_at: '' },
      {
        id: 0,
        status: 'submitted',
        created_at: '',
        lead_info: { name: 'Lee Ad', email: 'lead@example.com' },
        converted_to: null,
        submitter: { id: partnerId, name: 'Pat Kay', email: 'pk@example.com' },
        submission_form: [
          { question: 'Name', answer: 'Lee Ad' },
          { question: 'Email address', answer: 'lead@example.com' },
        ],
        can_be_converted: true,
        can_be_rejected: true,
      },
    );
    const fetched = await req(p, 'GET', `/v1/leads/${lead.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body.data, lead);
    const events = await recordedEvents(server(), p);
    assert.deepEqual(
      events.filter((e) => e.event.startsWith('lead.')).map((e) => [e.event, e.payload.id]),
      [['lead.created', lead.id]],
    );
  });

  test('`cfields: []` (an empty map from a PHP client) means no answers', async () => {
    const { p } = await programWithPartner(server());
    const res = await submit(p, { name: 'N', email: 'n@example.com', partner: { key: 'pk' }, cfields: [] });
    assert.equal(res.status, 201, res.text);
    const bad = await submit(p, {
      name: 'N',
      email: 'n@example.com',
      partner: { key: 'pk' },
      cfields: ['x'],
    });
    assert.equal(bad.status, 422, bad.text);
  });

  test('convert refuses a lead whose partner was deleted or archived since', async () => {
    const { p, partnerId } = await programWithPartner(server());
    const lead = await newLead(p);
    assert.equal((await req(p, 'POST', `/v1/partners/${partnerId}/archive`)).status, 200);
    const archived = await req(p, 'POST', '/v1/leads/convert', {
      id: lead.id,
      commission_transaction_amount: 1,
    });
    assert.equal(archived.status, 422, archived.text);
    assert.deepEqual(archived.error.errors, { id: ['The partner who submitted the lead is archived.'] });
    const deleted = await req(p, 'DELETE', `/v1/partners/${partnerId}`);
    assert.equal(deleted.status, 200, deleted.text);
    const gone = await req(p, 'POST', '/v1/leads/convert', { id: lead.id, commission_transaction_amount: 1 });
    assert.equal(gone.status, 422, gone.text);
    assert.deepEqual(gone.error.errors, { id: ['The partner who submitted the lead no longer exists.'] });
    const stored = await req(p, 'GET', `/v1/leads/${lead.id}`);
    assert.equal(stored.body.data.status, 'submitted');
    assert.equal(stored.body.data.submitter.id, partnerId, 'the submitter stays as it was');
  });

  test('the partner may be named by key, id or email', async () => {
    const { p, partnerId } = await programWithPartner(server());
    for (const partner of [{ key: 'pk' }, { id: partnerId }, { email: 'pk@example.com' }]) {
      const res = await submit(p, { name: 'N', email: 'n@example.com', partner });
      assert.equal(res.status, 201, `${JSON.stringify(partner)}: ${res.text}`);
      assert.equal(res.body.data.submitter.id, partnerId);
    }
  });

  test('custom form: answers are checked and listed in submission_form by field title', async () => {
    const { p } = await programWithPartner(server());
    const fields = await setForm(p);
    const cfields = {
      [idOf(fields, 'Company')]: 'Acme',
      [idOf(fields, 'Size')]: '11-50',
      [idOf(fields, 'Interests')]: ['seo', 'email'],
      [idOf(fields, 'Plan')]: 'pro',
      [idOf(fields, 'Country')]: 'de',
    };
    const res = await submit(p, { name: 'Lee', email: 'lee@example.com', partner: { key: 'pk' }, cfields });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.data.submission_form, [
      { question: 'Name', answer: 'Lee' },
      { question: 'Email address', answer: 'lee@example.com' },
      { question: 'Company', answer: 'Acme' },
      { question: 'Size', answer: '11-50' },
      { question: 'Interests', answer: 'seo, email' },
      { question: 'Plan', answer: 'pro' },
      { question: 'Country', answer: 'DE' },
      { question: 'Notes', answer: null },
      { question: 'Intro', answer: null },
    ]);
  });

  test('bad answers: 422 naming each field, nothing stored', async () => {
    const { p } = await programWithPartner(server());
    const fields = await setForm(p);
    const base = { name: 'Lee', email: 'lee@example.com', partner: { key: 'pk' } };
    const company = idOf(fields, 'Company');
    const size = idOf(fields, 'Size');
    const valid = { [company]: 'Acme', [size]: '1-10' };
    const cases: [Record<string, unknown>, string, string][] = [
      [{}, `cfields.${company}`, `The cfields.${company} field is required.`],
      [{ ...valid, [company]: '   ' }, `cfields.${company}`, `The cfields.${company} field is required.`],
      [{ ...valid, [size]: 'huge' }, `cfields.${size}`, `The selected cfields.${size} is invalid.`],
      [
        { ...valid, [idOf(fields, 'Plan')]: 'gold' },
        `cfields.${idOf(fields, 'Plan')}`,
        `The selected cfields.${idOf(fields, 'Plan')} is invalid.`,
      ],
      [
        { ...valid, [idOf(fields, 'Interests')]: 'seo' },
        `cfields.${idOf(fields, 'Interests')}`,
        `The cfields.${idOf(fields, 'Interests')} field must be an array.`,
      ],
      [
        { ...valid, [idOf(fields, 'Interests')]: ['seo', 'tv'] },
        `cfields.${idOf(fields, 'Interests')}`,
        `The selected cfields.${idOf(fields, 'Interests')} is invalid.`,
      ],
      [
        { ...valid, [idOf(fields, 'Country')]: 'XX' },
        `cfields.${idOf(fields, 'Country')}`,
        `The selected cfields.${idOf(fields, 'Country')} is invalid.`,
      ],
      [
        { ...valid, [idOf(fields, 'Country')]: 'DEU' },
        `cfields.${idOf(fields, 'Country')}`,
        `The selected cfields.${idOf(fields, 'Country')} is invalid.`,
      ],
      [
        { ...valid, [company]: 'x'.repeat(256) },
        `cfields.${company}`,
        `The cfields.${company} field must not be greater than 255 characters.`,
      ],
      [{ ...valid, 99999: 'what' }, 'cfields.99999', 'The selected cfields.99999 is invalid.'],
    ];
    for (const [cfields, field, message] of cases) {
      const res = await submit(p, { ...base, cfields });
      assert.equal(res.status, 422, `${JSON.stringify(cfields)}: ${res.text}`);
      assert.deepEqual(res.error.errors[field], [message], JSON.stringify(res.body));
      assert.equal(res.body.status, 0);
    }
    const list = await req(p, 'GET', '/v1/leads');
    assert.equal(list.body.data.length, 0);
  });

  test('oversized input: a long answer is 422, a 1 MB body 413, a 1,000-field form 422; never a 500', async () => {
    const { p } = await programWithPartner(server());
    const fields = await setForm(p);
    const notes = idOf(fields, 'Notes');
    const required = { [idOf(fields, 'Company')]: 'Acme', [idOf(fields, 'Size')]: '1-10' };
    const long = await submit(p, {
      name: 'Lee',
      email: 'lee@example.com',
      partner: { key: 'pk' },
      cfields: { ...required, [notes]: 'x'.repeat(10_001) },
    });
    assert.equal(long.status, 422, long.text);
    assert.deepEqual(long.error.errors, {
      [`cfields.${notes}`]: [`The cfields.${notes} field must not be greater than 10000 characters.`],
    });
    const number = await submit(p, {
      name: 'Lee',
      email: 'lee@example.com',
      partner: { key: 'pk' },
      cfields: { ...required, [notes]: 5 },
    });
    assert.deepEqual(number.error.errors, {
      [`cfields.${notes}`]: [`The cfields.${notes} field must be a string.`],
    });
    const huge = await submit(p, {
      name: 'Lee',
      email: 'lee@example.com',
      partner: { key: 'pk' },
      cfields: { ...required, [notes]: 'x'.repeat(1024 * 1024) },
    });
    assert.equal(huge.status, 413, huge.text);
    const manyFields = Array.from({ length: 1000 }, (_, i) => ({ type: 'input', title: `Q${i}` }));
    const big = await req(p, 'PUT', '/v1/leads/details', { leads_custom_form_fields: manyFields });
    assert.equal(big.status, 422, big.text);
    assert.deepEqual(big.error.errors.leads_custom_form_fields, [
      'The leads custom form fields field must not have more than 100 items.',
    ]);
    const manyAnswers = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [String(i + 1), 'a']));
    const answers = await submit(p, {
      name: 'Lee',
      email: 'l@example.com',
      partner: { key: 'pk' },
      cfields: manyAnswers,
    });
    assert.equal(answers.status, 422, answers.text);
  });

  test('missing and malformed lead fields: 422 with Laravel wording', async () => {
    const { p } = await programWithPartner(server());
    const empty = await submit(p, {});
    assert.equal(empty.status, 422, empty.text);
    assert.deepEqual(empty.error.errors, {
      name: ['The name field is required.'],
      email: ['The email field is required.'],
      partner: ['The partner field is required.'],
    });
    const badEmail = await submit(p, { name: 'N', email: 'nope', partner: { key: 'pk' } });
    assert.deepEqual(badEmail.error.errors, { email: ['The email field must be a valid email address.'] });
    const noRef = await submit(p, { name: 'N', email: 'n@example.com', partner: {} });
    assert.deepEqual(noRef.error.errors, { partner: ['The partner field is required.'] });
    const unknown = await submit(p, { name: 'N', email: 'n@example.com', partner: { key: 'nobody' } });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.error.errors, { partner: ['The selected partner is invalid.'] });
  });

  test("another program's partner cannot submit here", async () => {
    const { p } = await programWithPartner(server());
    const other = await programWithPartner(server());
    const res = await submit(p, { name: 'N', email: 'n@example.com', partner: { id: other.partnerId } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.error.errors, { partner: ['The selected partner is invalid.'] });
  });

  test('an archived partner cannot submit', async () => {
    const { p, partnerId } = await programWithPartner(server());
    assert.equal((await req(p, 'POST', `/v1/partners/${partnerId}/archive`)).status, 200);
    const res = await submit(p, { name: 'N', email: 'n@example.com', partner: { key: 'pk' } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.error.errors, { partner: ['The selected partner is archived.'] });
  });

  test('leads disabled: 403 with a clear message; enabled again: 201', async () => {
    const { p } = await programWithPartner(server());
    const off = await req(p, 'PUT', '/v1/leads/details', { update: { leads_enabled: false } });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.data.leads_enabled, 'false');
    const res = await submit(p, { name: 'N', email: 'n@example.com', partner: { key: 'pk' } });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.error.message, 'Leads are disabled for this program.');
    assert.equal(res.body.status, 0);
    assert.equal((await req(p, 'PUT', '/v1/leads/details', { leads_enabled: 'true' })).status, 200);
    assert.equal(
      (await submit(p, { name: 'N', email: 'n@example.com', partner: { key: 'pk' } })).status,
      201,
    );
  });

  test('setup edits keep field ids; removed ids are never reused; unknown ids are refused', async () => {
    const { p } = await programWithPartner(server());
    const first = await setForm(p, [
      { type: 'input', title: 'A' },
      { type: 'input', title: 'B' },
    ]);
    const a = present(
      first.find((f) => f.title === 'A'),
      'field A',
    );
    const b = present(
      first.find((f) => f.title === 'B'),
      'field B',
    );
    assert.notEqual(a.id, b.id);
    const second = await setForm(p, [
      { id: b.id, type: 'input', title: 'B renamed' },
      { type: 'input', title: 'C' },
    ] as typeof form);
    assert.equal(itemAt(second).id, b.id);
    assert.equal(itemAt(second).title, 'B renamed');
    assert.ok(![a.id, b.id].includes(itemAt(second, 1).id), 'a new field gets a fresh id');
    const unknown = await req(p, 'PUT', '/v1/leads/details', {
      leads_custom_form_fields: [{ id: a.id, type: 'input', title: 'A again' }],
    });
    assert.equal(unknown.status, 422, unknown.text);
    assert.deepEqual(unknown.error.errors, {
      'leads_custom_form_fields.0.id': ['The selected leads custom form fields.0.id is invalid.'],
    });
    const details = await req(p, 'GET', '/v1/leads/details');
    assert.deepEqual(
      details.body.data.leads_custom_form_fields.map((f: { id: number }) => f.id),
      second.map((f) => f.id),
    );
  });

  test('concurrent setup edits never hand out one new field id twice', async () => {
    const { p } = await programWithPartner(server());
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        req(p, 'PUT', '/v1/leads/details', { leads_custom_form_fields: [{ type: 'input', title: `Q${i}` }] }),
      ),
    );
    const ids = replies.map((r) => {
      assert.equal(r.status, 200, r.text);
      return itemAt(r.body.data.leads_custom_form_fields).id;
    });
    assert.equal(new Set(ids).size, ids.length, `ids ${ids.join(', ')}`);
  });

  test('setup validation: options required for choices, known types, percent at most 100', async () => {
    const { p } = await programWithPartner(server());
    const cases: [unknown, string, string][] = [
      [
        { leads_custom_form_fields: [{ type: 'select', title: 'S' }] },
        'leads_custom_form_fields.0.options',
        'The leads custom form fields.0.options field is required.',
      ],
      [
        { leads_custom_form_fields: [{ type: 'radio', title: 'R', options: ['a', 'a'] }] },
        'leads_custom_form_fields.0.options',
        'The leads custom form fields.0.options field has a duplicate value.',
      ],
      [
        { leads_custom_form_fields: [{ type: 'slider', title: 'S' }] },
        'leads_custom_form_fields.0.type',
        'The selected leads custom form fields.0.type is invalid.',
      ],
      [
        { leads_custom_form_fields: [{ type: 'input' }] },
        'leads_custom_form_fields.0.title',
        'The leads custom form fields.0.title field is required.',
      ],
      [
        { leads_commission: { commission: 150 } },
        'leads_commission.commission',
        'The leads commission.commission field must not be greater than 100.',
      ],
      [
        { leads_commission: { currency: 'XYZ1' } },
        'leads_commission.currency',
        'The selected leads commission.currency is invalid.',
      ],
      [
        { program_leads_commission_type: 'sometimes' },
        'program_leads_commission_type',
        'The selected program leads commission type is invalid.',
      ],
    ];
    for (const [body, field, message] of cases) {
      const res = await req(p, 'PUT', '/v1/leads/details', body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      assert.deepEqual(res.error.errors[field], [message], `${JSON.stringify(body)}: ${res.text}`);
    }
    const details = await req(p, 'GET', '/v1/leads/details');
    assert.deepEqual(details.body.data.leads_custom_form_fields, []);
    assert.equal(details.body.data.leads_commission.commission, 20);
  });

  test('convert (GET): a customer of the partner and a sale at the program commission; figures move', async () => {
    const { p, partnerId } = await programWithPartner(server());
    const lead = await newLead(p);
    const res = await req(p, 'GET', `/v1/leads/convert?id=${lead.id}&commission_transaction_amount=150.5`);
    assert.equal(res.status, 200, res.text);
    const converted = res.body.data;
    assert.equal(converted.status, 'converted');
    assert.equal(converted.can_be_converted, false);
    assert.equal(converted.can_be_rejected, false);
    const convertedTo = converted.converted_to;
    assert.ok(convertedTo, res.text);
    assert.equal(convertedTo.email, 'lead@example.com');
    assert.equal(convertedTo.name, 'Lee Ad');
    const customer = await req(p, 'GET', `/v1/customers/${convertedTo.key}`);
    assert.equal(customer.status, 200, customer.text);
    assert.equal(customer.body.data.partner, partnerId);
    const sales = await req(p, 'GET', `/v1/transactions?customer[key]=${convertedTo.key}`);
    assert.equal(sales.body.data.length, 1, sales.text);
    assert.equal(sales.body.data[0]?.amount, 150.5);
    assert.equal(sales.body.data[0]?.partner, partnerId);
    assert.equal(sales.body.data[0]?.rewards[0]?.amount, 30.1);
    const partner = await req(p, 'GET', `/v1/partners/${partnerId}`);
    assert.equal(partner.body.data.referrals.sales_count, 1);
    assert.equal(partner.body.data.referrals.paid_accounts, 1);
    assert.deepEqual(partner.body.data.referrals.revenue, [{ currency: 'USD', amount: 150.5 }]);
    assert.deepEqual(partner.body.data.commissions.not_paid, [{ currency: 'USD', amount: 30.1 }]);
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.deepEqual(
      events.filter((e) => ['lead.converted', 'customer.created', 'transaction.created'].includes(e)),
      ['customer.created', 'transaction.created', 'lead.converted'],
    );
    const again = await req(p, 'GET', `/v1/leads/convert?id=${lead.id}&commission_transaction_amount=10`);
    assert.equal(again.status, 422, again.text);
    assert.deepEqual(again.error.errors, { id: ['The lead has already been converted.'] });
    const after = await req(p, 'GET', `/v1/partners/${partnerId}`);
    assert.equal(after.body.data.referrals.sales_count, 1, 'a refused conversion records no sale');
  });

  test('convert (POST) with a lead-specific commission; the existing customer of that e-mail is reused', async () => {
    const { p, partnerId } = await programWithPartner(server());
    const setup = await req(p, 'PUT', '/v1/leads/details', {
      program_leads_commission_type: 'lead_specific',
      leads_commission: { currency: 'eur', commission: 25, commission_type: 'fixed' },
    });
    assert.equal(setup.status, 200, setup.text);
    assert.deepEqual(setup.body.data.leads_commission, {
      currency: 'EUR',
      commission: 25,
      commission_type: 'fixed',
    });
    const existing = await req(p, 'POST', '/v1/customers', {
      key: 'known',
      email: 'lead@example.com',
      partner: { key: 'pk' },
    });
    assert.equal(existing.status, 201, existing.text);
    const lead = await newLead(p);
    const res = await req(p, 'POST', '/v1/leads/convert', {
      id: lead.id,
      commission_transaction_amount: '400',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.converted_to?.key, 'known');
    const sales = await req(p, 'GET', '/v1/transactions?customer[key]=known');
    assert.equal(sales.body.data.length, 1);
    assert.equal(sales.body.data[0]?.amount_units, 'EUR');
    assert.equal(sales.body.data[0]?.rewards[0]?.amount, 25);
    const partner = await req(p, 'GET', `/v1/partners/${partnerId}`);
    assert.deepEqual(partner.body.data.commissions.not_paid, [{ currency: 'EUR', amount: 25 }]);
    const customers = await req(p, 'GET', '/v1/customers');
    assert.equal(customers.body.data.length, 1, 'no second customer');
  });

  test('the lead commission shows the program settings until set; a lead-specific percent keeps the hold days', async () => {
    const { p, partnerId } = await programWithPartner(server());
    const program = await req(p, 'PUT', '/v1/program', {
      program_settings: {
        currency: 'EUR',
        commission: { type: 'fixed', value: 5 },
        product_commissions: [{ product_type: 'plan', type: 'percent', value: 50 }],
        commission_hold_days: 3,
      },
    });
    assert.equal(program.status, 200, program.text);
    const before = await req(p, 'GET', '/v1/leads/details');
    assert.deepEqual(before.body.data.leads_commission, {
      currency: 'EUR',
      commission: 5,
      commission_type: 'fixed',
    });
    const setup = await req(p, 'PUT', '/v1/leads/details', {
      program_leads_commission_type: 'lead_specific',
      leads_commission: { commission: 12.5, commission_type: 'percent' },
    });
    assert.equal(setup.status, 200, setup.text);
    assert.deepEqual(setup.body.data.leads_commission, {
      currency: 'EUR',
      commission: 12.5,
      commission_type: 'percent',
    });
    const lead = await newLead(p);
    const res = await req(p, 'GET', `/v1/leads/convert?id=${lead.id}&commission_transaction_amount=99.99`);
    assert.equal(res.status, 200, res.text);
    const sales = await req(p, 'GET', '/v1/transactions');
    assert.equal(sales.body.data[0]?.rewards.length, 1);
    assert.equal(sales.body.data[0]?.rewards[0]?.amount, 12.49875);
    assert.equal(sales.body.data[0]?.rewards[0]?.status, 'review_period');
    const partner = await req(p, 'GET', `/v1/partners/${partnerId}`);
    assert.deepEqual(partner.body.data.commissions.pending, [{ currency: 'EUR', amount: 12.49875 }]);
    const back = await req(p, 'PUT', '/v1/leads/details', {
      program_leads_commission_type: 'follow_program_settings',
    });
    assert.equal(back.body.data.program_leads_commission_type, 'follow_program_settings');
    const second = await newLead(p, 'second@example.com');
    await req(p, 'GET', `/v1/leads/convert?id=${second.id}&commission_transaction_amount=99.99`);
    const after = await req(p, 'GET', `/v1/partners/${partnerId}`);
    assert.deepEqual(after.body.data.commissions.pending, [{ currency: 'EUR', amount: 17.49875 }]);
  });

  test("convert refuses a lead whose e-mail is another partner's customer; nothing is written", async () => {
    const { p } = await programWithPartner(server());
    assert.equal(
      (await req(p, 'POST', '/v1/partners', { email: 'other@example.com', key: 'other' })).status,
      201,
    );
    assert.equal(
      (
        await req(p, 'POST', '/v1/customers', {
          key: 'theirs',
          email: 'lead@example.com',
          partner: { key: 'other' },
        })
      ).status,
      201,
    );
    const lead = await newLead(p);
    const res = await req(p, 'POST', '/v1/leads/convert', { id: lead.id, commission_transaction_amount: 10 });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.error.errors, {
      id: ["The lead's email address belongs to a customer of another partner."],
    });
    const stored = await req(p, 'GET', `/v1/leads/${lead.id}`);
    assert.equal(stored.body.data.status, 'submitted', 'the claim was rolled back');
    assert.equal((await req(p, 'GET', '/v1/transactions')).body.data.length, 0);
  });

  test('convert input: missing, malformed, negative or inexact amounts are 422; unknown lead 404', async () => {
    const { p } = await programWithPartner(server());
    const lead = await newLead(p);
    const missing = await req(p, 'GET', '/v1/leads/convert');
    assert.equal(missing.status, 422, missing.text);
    assert.deepEqual(Object.keys(missing.error.errors).sort(), ['commission_transaction_amount', 'id']);
    for (const [amount, message] of [
      ['abc', 'The commission transaction amount field must be a number.'],
      ['-5', 'The commission transaction amount field must be at least 0.'],
      ['1.1234567', 'The commission transaction amount field must not have more than 6 decimal places.'],
    ]) {
      const res = await req(p, 'POST', '/v1/leads/convert', {
        id: lead.id,
        commission_transaction_amount: amount,
      });
      assert.equal(res.status, 422, `${amount}: ${res.text}`);
      assert.deepEqual(res.error.errors, { commission_transaction_amount: [message] });
    }
    for (const id of ['999999', 'abc', '0']) {
      const res = await req(p, 'GET', `/v1/leads/convert?id=${id}&commission_transaction_amount=1`);
      assert.equal(res.status, 404, `${id}: ${res.text}`);
      assert.equal(res.error.message, 'Lead not found.');
    }
    assert.equal((await req(p, 'GET', `/v1/leads/${lead.id}`)).body.data.status, 'submitted');
  });

  test('reject (GET and POST): state table flags; rejecting twice is 422; a rejected lead can be converted', async () => {
    const { p } = await programWithPartner(server());
    const lead = await newLead(p);
    const res = await req(p, 'GET', `/v1/leads/reject?id=${lead.id}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'rejected');
    assert.equal(res.body.data.can_be_rejected, false);
    assert.equal(res.body.data.can_be_converted, true);
    const twice = await req(p, 'POST', '/v1/leads/reject', { id: lead.id });
    assert.equal(twice.status, 422, twice.text);
    assert.deepEqual(twice.error.errors, { id: ['The lead has already been rejected.'] });
    const converted = await req(p, 'POST', '/v1/leads/convert', {
      id: String(lead.id),
      commission_transaction_amount: 5,
    });
    assert.equal(converted.status, 200, converted.text);
    assert.equal(converted.body.data.status, 'converted');
    const afterConvert = await req(p, 'POST', '/v1/leads/reject', { id: lead.id });
    assert.equal(afterConvert.status, 422);
    assert.deepEqual(afterConvert.error.errors, { id: ['The lead has already been converted.'] });
    const unknown = await req(p, 'POST', '/v1/leads/reject', { id: 424242 });
    assert.equal(unknown.status, 404, unknown.text);
    const events = (await recordedEvents(server(), p))
      .map((e) => e.event)
      .filter((e) => e.startsWith('lead.'));
    assert.deepEqual(events, ['lead.created', 'lead.rejected', 'lead.converted']);
  });

  test("another program's lead is not found: fetch, convert, reject, delete", async () => {
    const { p } = await programWithPartner(server());
    const other = await programWithPartner(server());
    const lead = await newLead(p);
    for (const [method, path, body] of [
      ['GET', `/v1/leads/${lead.id}`, undefined],
      ['DELETE', `/v1/leads/${lead.id}`, undefined],
      ['GET', `/v1/leads/convert?id=${lead.id}&commission_transaction_amount=1`, undefined],
      ['POST', '/v1/leads/convert', { id: lead.id, commission_transaction_amount: 1 }],
      ['GET', `/v1/leads/reject?id=${lead.id}`, undefined],
      ['POST', '/v1/leads/reject', { id: lead.id }],
    ] as const) {
      const res = await req(other.p, method, path, body);
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.error.message, 'Lead not found.');
    }
    assert.equal((await req(p, 'GET', `/v1/leads/${lead.id}`)).body.data.status, 'submitted');
    assert.equal((await req(other.p, 'GET', '/v1/leads')).body.data.length, 0);
  });

  test('list: the envelope, newest first, filters by status, e-mail and partner', async () => {
    const { p, partnerId } = await programWithPartner(server());
    assert.equal(
      (await req(p, 'POST', '/v1/partners', { email: 'o@example.com', key: 'other' })).status,
      201,
    );
    const a = await newLead(p, 'a@example.com');
    const b = await newLead(p, 'b@example.com');
    const c = await submit(p, { name: 'C', email: 'c@example.com', partner: { key: 'other' } });
    assert.equal(c.status, 201);
    await req(p, 'GET', `/v1/leads/reject?id=${a.id}`);
    const all = await req(p, 'GET', '/v1/leads?limit=2');
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.data.map((l: { id: number }) => l.id),
      [c.body.data.id, b.id],
    );
    assert.ok(all.body.links.next);
    assert.equal(all.body.meta.per_page, 2);
    const ids = async (query: string) =>
      (await req(p, 'GET', `/v1/leads?${query}`)).body.data.map((l: { id: number }) => l.id);
    assert.deepEqual(await ids('status=rejected'), [a.id]);
    assert.deepEqual(await ids('email=B@example.com'), [b.id]);
    assert.deepEqual(await ids(`partner[id]=${partnerId}&sort=asc`), [a.id, b.id]);
    assert.deepEqual(await ids('partner[key]=nobody'), []);
    const bad = await req(p, 'GET', '/v1/leads?status=won');
    assert.equal(bad.status, 422);
  });

  test('delete: 200 {status: 1}, lead.deleted recorded, then 404; the converted sale stays', async () => {
    const { p } = await programWithPartner(server());
    const lead = await newLead(p);
    await req(p, 'POST', '/v1/leads/convert', { id: lead.id, commission_transaction_amount: 10 });
    const res = await req(p, 'DELETE', `/v1/leads/${lead.id}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { status: 1 });
    assert.equal((await req(p, 'GET', `/v1/leads/${lead.id}`)).status, 404);
    assert.equal((await req(p, 'DELETE', `/v1/leads/${lead.id}`)).status, 404);
    assert.equal((await req(p, 'GET', '/v1/transactions')).body.data.length, 1);
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.equal(events.at(-1), 'lead.deleted');
  });

  test('concurrent conversions of one lead: exactly one sale; concurrent rejections: exactly one', async () => {
    const { p, partnerId } = await programWithPartner(server());
    const lead = await newLead(p);
    const converts = await Promise.all(
      Array.from({ length: 8 }, () =>
        req(p, 'POST', '/v1/leads/convert', { id: lead.id, commission_transaction_amount: 10 }),
      ),
    );
    assert.deepEqual(
      converts.map((r) => r.status).sort(),
      [200, 422, 422, 422, 422, 422, 422, 422],
      converts.map((r) => r.text).join('\n'),
    );
    const partner = await req(p, 'GET', `/v1/partners/${partnerId}`);
    assert.equal(partner.body.data.referrals.sales_count, 1);
    const second = await newLead(p, 'second@example.com');
    const rejects = await Promise.all(
      Array.from({ length: 8 }, () => req(p, 'POST', '/v1/leads/reject', { id: second.id })),
    );
    assert.deepEqual(rejects.map((r) => r.status).sort(), [200, 422, 422, 422, 422, 422, 422, 422]);
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.equal(events.filter((e) => e === 'lead.converted').length, 1);
    assert.equal(events.filter((e) => e === 'lead.rejected').length, 1);
  });

  test('concurrent conversions of leads with one e-mail: one customer; across partners only one partner wins', async () => {
    const { p, partnerId } = await programWithPartner(server());
    const same = [await newLead(p, 'twin@example.com'), await newLead(p, 'twin@example.com')];
    const both = await Promise.all(
      same.map((lead) =>
        req(p, 'POST', '/v1/leads/convert', { id: lead.id, commission_transaction_amount: 10 }),
      ),
    );
    assert.deepEqual(
      both.map((r) => r.status),
      [200, 200],
      both.map((r) => r.text).join('\n'),
    );
    assert.equal(itemAt(both).body.data.converted_to?.key, itemAt(both, 1).body.data.converted_to?.key);
    const partner = await req(p, 'GET', `/v1/partners/${partnerId}`);
    assert.equal(partner.body.data.referrals.sales_count, 2);
    assert.equal(partner.body.data.referrals.paid_accounts, 1);
    assert.equal((await req(p, 'GET', '/v1/customers')).body.data.length, 1);

    assert.equal(
      (await req(p, 'POST', '/v1/partners', { email: 'o@example.com', key: 'other' })).status,
      201,
    );
    const mine = await newLead(p, 'contested@example.com');
    const theirs = await submit(p, { name: 'C', email: 'contested@example.com', partner: { key: 'other' } });
    assert.equal(theirs.status, 201);
    const race = await Promise.all(
      [mine.id, theirs.body.data.id].map((id) =>
        req(p, 'POST', '/v1/leads/convert', { id, commission_transaction_amount: 10 }),
      ),
    );
    assert.deepEqual(race.map((r) => r.status).sort(), [200, 422], race.map((r) => r.text).join('\n'));
    const loser = present(
      race.find((r) => r.status === 422),
      'the refused conversion',
    );
    assert.deepEqual(loser.error.errors, {
      id: ["The lead's email address belongs to a customer of another partner."],
    });
    const sales = await req(p, 'GET', '/v1/transactions?limit=100');
    assert.equal(sales.body.data.length, 3, 'the refused conversion recorded no sale');
  });

  test('webhooks: affiliate programs subscribe to lead events; other types refuse them with 422', async () => {
    const { p } = await programWithPartner(server());
    const events = ['lead.created', 'lead.converted', 'lead.rejected', 'lead.deleted'];
    const ok = await req(p, 'POST', '/v1/webhooks', {
      name: 'leads',
      url: 'https://hooks.example.com/x',
      events,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.data.events, events);
    for (const type of ['referral', 'newsletter'] as const) {
      const other = await server().newProgram(type);
      const res = await req(other, 'POST', '/v1/webhooks', {
        name: 'leads',
        url: 'https://hooks.example.com/x',
        events: ['lead.created'],
      });
      assert.equal(res.status, 422, `${type}: ${res.text}`);
      assert.ok(res.error.errors['events.0'], res.text);
    }
  });

  test('a webhook subscribed to lead events receives each lead as the API returned it', async () => {
    const receiver = await startReceiver(200);
    const worker = createWorker(server().deps, { timeoutMs: 10_000 });
    try {
      const { p } = await programWithPartner(server());
      const hook = await req(p, 'POST', '/v1/webhooks', {
        name: 'leads',
        url: receiver.url,
        events: ['lead.created', 'lead.converted', 'lead.rejected', 'lead.deleted'],
      });
      assert.equal(hook.status, 200, hook.text);
      const lead = await newLead(p);
      const rejected = await req(p, 'GET', `/v1/leads/reject?id=${lead.id}`);
      const converted = await req(
        p,
        'GET',
        `/v1/leads/convert?id=${lead.id}&commission_transaction_amount=5`,
      );
      assert.equal((await req(p, 'DELETE', `/v1/leads/${lead.id}`)).status, 200);
      await worker.runOnce();
      const delivered = receiver.received
        .map((r) => JSON.parse(r.body))
        .sort((a, b) => a.event.localeCompare(b.event));
      assert.deepEqual(
        delivered.map((d) => [d.event, d.data]),
        [
          ['lead.converted', converted.body.data],
          ['lead.created', lead],
          ['lead.deleted', converted.body.data],
          ['lead.rejected', rejected.body.data],
        ],
      );
    } finally {
      worker.close();
      await receiver.close();
    }
  });

  test('a read-only key may read leads but not convert or reject them, even with GET', async () => {
    const { p } = await programWithPartner(server());
    const lead = await newLead(p);
    const read = <const P extends string>(path: P) => server().request('GET', path, { token: p.readToken });
    assert.equal((await read(`/v1/leads/${lead.id}`)).status, 200);
    assert.equal((await read('/v1/leads')).status, 200);
    assert.equal((await read('/v1/leads/details')).status, 200);
    for (const path of [
      `/v1/leads/convert?id=${lead.id}&commission_transaction_amount=1`,
      `/v1/leads/reject?id=${lead.id}`,
    ]) {
      const res = await read(path);
      assert.equal(res.status, 403, `${path}: ${res.text}`);
      assert.equal(res.error.message, 'This action is unauthorized: the API key is read-only.');
    }
    assert.equal((await req(p, 'GET', `/v1/leads/${lead.id}`)).body.data.status, 'submitted');
  });

  test("convert and reject read a GET request's JSON body when the query lacks the fields (contract §4.3)", async () => {
    const { p } = await programWithPartner(server());
    const lead = await newLead(p);
    const rejected = await req(p, 'GET', '/v1/leads/reject', { id: lead.id });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.data.status, 'rejected');
    const converted = await req(p, 'GET', '/v1/leads/convert', {
      id: String(lead.id),
      commission_transaction_amount: '7',
    });
    assert.equal(converted.status, 200, converted.text);
    assert.equal(converted.body.data.status, 'converted');
  });

  test('leads are affiliate-only: 403 for other program types', async () => {
    const other = await server().newProgram('referral');
    const res = await req(other, 'GET', '/v1/leads/details');
    assert.equal(res.status, 403);
    assert.equal(res.error.message, 'This endpoint is not available for Referral programs.');
  });
});
