import { Field, Select } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import type { couponsPage } from './console.coupons.service.ts';
import { discountChoices, durationChoices } from './console.coupons.service.ts';
import { FormCard } from './console.forms.views.tsx';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, ListTable, numeric, Pager } from './console.lists.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';

/** Coupons: the list, and `New coupon` checked as `POST /v1/coupons` checks it. */

export type CouponForm = Record<
  | 'name'
  | 'uuid_code'
  | 'coupon_discount_type'
  | 'coupon_discount_amount'
  | 'coupon_duration_type'
  | 'coupon_duration_value',
  string
>;

export function CouponsPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  list: Awaited<ReturnType<typeof couponsPage>>;
  page: number;
  values?: CouponForm;
  errors?: Record<string, string>;
}) {
  const { program, list } = props;
  const base = `${program.base}/coupons`;
  const values = props.values;
  const errors = props.errors ?? {};
  return (
    <ConsoleLayout title="Coupons" user={props.user} csrf={props.csrf} program={program} section="coupons">
      <div class="card">
        <h1>Coupons</h1>
        <p class="muted">A coupon is a discount; customers redeem it with one of its promotion codes.</p>
        <ListTable
          empty="No coupons yet."
          columns={['Coupon', 'Discount', 'Lasts', numeric('Codes'), 'Status']}
          rows={list.items}
          row={(coupon) => (
            <tr key={coupon.uuid}>
              <td data-label="Coupon">
                <a href={`${base}/${encodeURIComponent(coupon.uuid)}`}>{coupon.name}</a>
                {coupon.name !== coupon.uuid ? (
                  <>
                    <br />
                    <span class="muted">{coupon.uuid}</span>
                  </>
                ) : null}
              </td>
              <td data-label="Discount">{coupon.discount}</td>
              <td data-label="Lasts">{coupon.duration}</td>
              <td data-label="Codes" class="num">
                {coupon.codes}
              </td>
              <td data-label="Status">
                {coupon.active ? (
                  <Badge kind="approved">Active</Badge>
                ) : (
                  <Badge kind="archived">Inactive</Badge>
                )}
              </td>
            </tr>
          )}
        />
        <Pager base={base} query={{}} page={props.page} hasNext={list.hasNext} />
      </div>
      {mayWrite(program.role) ? (
        <FormCard action={base} title="New coupon" csrf={props.csrf} errors={errors}>
          <Field
            name="name"
            label="Name"
            value={values?.name}
            error={errors.name}
            hint="What customers see."
          />
          <Field
            name="uuid_code"
            label="Code in the API"
            value={values?.uuid_code}
            error={errors.uuid_code}
            hint="Letters, digits, - and _; made up when empty."
          />
          <Select
            name="coupon_discount_type"
            label="Discount"
            options={discountChoices}
            value={values?.coupon_discount_type ?? 'percent'}
            error={errors.coupon_discount_type}
          />
          <Field
            name="coupon_discount_amount"
            label="Amount of the discount"
            value={values?.coupon_discount_amount}
            error={errors.coupon_discount_amount}
            maxLength={32}
            hint="Percent (up to 100) or a whole amount."
          />
          <Select
            name="coupon_duration_type"
            label="Lasts"
            options={durationChoices}
            value={values?.coupon_duration_type ?? 'once'}
            error={errors.coupon_duration_type}
          />
          <Field
            name="coupon_duration_value"
            label="How many"
            value={values?.coupon_duration_value}
            error={errors.coupon_duration_value}
            maxLength={16}
            hint="Hours, days, months or years; empty for once or for ever."
          />
          <p class="actions">
            <button type="submit">Create coupon</button>
          </p>
        </FormCard>
      ) : null}
    </ConsoleLayout>
  );
}
