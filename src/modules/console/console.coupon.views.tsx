import { CsrfField, Field } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import type { CouponDetail } from './console.coupons.service.ts';
import { FormCard } from './console.forms.views.tsx';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, Done, ListTable, numeric, RowButton } from './console.lists.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';

/** One coupon: `Deactivate` / `Activate`, its promotion codes with `Delete`, and `Add code`. */

export type CodeForm = Record<'code' | 'expiration_date_value' | 'redemption_times_value', string>;

export function CouponPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  coupon: CouponDetail;
  values?: CodeForm;
  errors?: Record<string, string>;
  done?: string | undefined;
}) {
  const { program, coupon } = props;
  const base = `${program.base}/coupons/${encodeURIComponent(coupon.uuid)}`;
  const errors = props.errors ?? {};
  const writable = mayWrite(program.role);
  return (
    <ConsoleLayout
      title={`Coupon ${coupon.name}`}
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="coupons"
    >
      <div class="card">
        <p>
          <a href={`${program.base}/coupons`}>All coupons</a>
        </p>
        <h1>Coupon {coupon.name}</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        <p>
          {coupon.active ? <Badge kind="approved">Active</Badge> : <Badge kind="archived">Inactive</Badge>}{' '}
          <span class="muted">
            {coupon.uuid} · {coupon.discount} · {coupon.duration}
          </span>
        </p>
        {writable ? (
          <form method="post" action={`${base}/active`} class="actions">
            <CsrfField token={props.csrf} />
            {coupon.active ? (
              <button type="submit" name="active" value="no" class="secondary">
                Deactivate
              </button>
            ) : (
              <button type="submit" name="active" value="yes">
                Activate
              </button>
            )}
          </form>
        ) : null}
      </div>
      <div class="card">
        <h2>Promotion codes</h2>
        <ListTable
          empty="No codes yet: customers cannot redeem this coupon."
          columns={['Code', 'Expires', numeric('Redemptions allowed'), writable ? 'Actions' : null]}
          rows={coupon.codes}
          form={{ action: `${base}/codes/delete`, csrf: props.csrf }}
          row={(code) => (
            <tr key={code.code}>
              <td data-label="Code">
                <code>{code.code}</code>
              </td>
              <td data-label="Expires">{code.expires || 'Never'}</td>
              <td data-label="Redemptions allowed" class="num">
                {code.limit ?? 'Any'}
              </td>
              {writable ? (
                <RowButton name="code" value={code.code} label={`Delete ${code.code}`}>
                  Delete
                </RowButton>
              ) : null}
            </tr>
          )}
        />
      </div>
      {writable ? (
        <FormCard action={`${base}/codes`} title="Add a promotion code" csrf={props.csrf} errors={errors}>
          <Field
            name="code"
            label="Code"
            value={props.values?.code}
            error={errors.code}
            hint="What customers type: letters, digits, - and _; made up when empty."
          />
          <Field
            name="expiration_date_value"
            label="Expires on"
            value={props.values?.expiration_date_value}
            error={errors.expiration_date_value}
            maxLength={10}
            hint="A date like 2027-12-31; empty: never."
          />
          <Field
            name="redemption_times_value"
            label="Redemptions allowed"
            value={props.values?.redemption_times_value}
            error={errors.redemption_times_value}
            maxLength={16}
            hint="Empty: any number."
          />
          <p class="actions">
            <button type="submit">Add code</button>
          </p>
        </FormCard>
      ) : null}
    </ConsoleLayout>
  );
}
