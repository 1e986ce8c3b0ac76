import { type Static, Type } from 'typebox';
import { Success } from '../../http/schemas.ts';

/** A link key as the path carries it; what is not a plausible key is simply not found. */
export const LinkKeyParams = Type.Object({ key: Type.String({ description: 'The referral link key' }) });

export const ProgramLinkKeyParams = Type.Object({
  program: Type.String({ description: "The program's public id (`GET /v1/test` → `pub_id`)" }),
  key: Type.String({ description: 'The referral link key' }),
});

export const ReportClickBody = Type.Object(
  {
    program: Type.String({ minLength: 1, maxLength: 255, description: "The program's public id" }),
    key: Type.String({ minLength: 1, maxLength: 255, description: 'The key from `?aff=` / `?ref=`' }),
    url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          'The page the visitor landed on (`location.href`), kept with the click for the fraud rules (`paid_ads`); an absolute http(s) URL',
      }),
    ),
  },
  { title: 'ReportClickBody' },
);
export type ReportClickBody = Static<typeof ReportClickBody>;

export const ClickAnswer = Success(
  Type.Object(
    {
      key: Type.String(),
      click_id: Type.Union([Type.String(), Type.Null()], {
        description:
          'The id of this click, for the `vouch_click` cookie (your backend forwards it as `context.click_id`); null when the visit was not counted as a click (a bot, a prefetch)',
      }),
      cookie: Type.String({
        description: '`vouch_partner` (affiliate) or `vouch_referral` (refer-a-friend)',
      }),
      cookie_lifetime: Type.Integer({ description: "Days: the program's `cookie_lifetime`" }),
      attribution: Type.Union([Type.Literal('last_click'), Type.Literal('first_click')], {
        description: 'Whether a later click replaces a stored key (`last_click`) or not',
      }),
      parameter: Type.String({ description: "The program's referral parameter (`aff`, `ref`)" }),
    },
    { title: 'ClickAnswer' },
  ),
);

export const Redirect = Type.Null({
  description: 'Found: `Location` is the stored target; `Set-Cookie` carries the key when it is stored',
});
export const NotFoundPage = {
  description: 'A small HTML page: no such link, and no website to send the visitor to',
  content: { 'text/html': { schema: Type.String() } },
};
export const ScriptBody = {
  description: 'The tracking script, with an `ETag`',
  content: { 'text/javascript': { schema: Type.String() } },
};
export const NotModified = Type.Null({ description: 'The script is unchanged (`If-None-Match`)' });
export const PreflightAnswer = Type.Object({ status: Type.Literal(1) });
