import { createHash } from 'node:crypto';
import type { Deps, ProgramContext } from '../../context.ts';
import {
  declaresDocumentType,
  isLogoType,
  LOGO_MAX_BYTES,
  type LogoType,
  logoPath,
  logoTypes,
  sniffLogo,
} from '../../core/branding.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { nowTimestamp } from '../../core/time.ts';
import { sanitizeSvg } from './program.logo-svg.ts';
import * as repository from './program.repository.ts';
import { forgetPagePrograms } from './program.service.ts';

/**
 * The program's uploaded logo (issue 30): checked by its content, SVG cleaned before it is stored,
 * kept in the database and served by Vouch under a URL that changes with the file.
 */

export const LOGO_TOO_LARGE = `The logo must not be larger than ${LOGO_MAX_BYTES / 1024} KB.`;
const NOT_AN_IMAGE = 'The logo must be a PNG, JPEG or SVG image.';

/** Content types a client may declare for a logo (`image/jpg` is a common misspelling of JPEG). */
const declaredTypes: Record<string, LogoType> = {
  'image/png': 'image/png',
  'image/jpeg': 'image/jpeg',
  'image/jpg': 'image/jpeg',
  'image/svg+xml': 'image/svg+xml',
};

/** The file as stored: its content type by its bytes, SVG text cleaned. */
async function checkedLogo(bytes: Buffer, declared: string | undefined) {
  if (bytes.length === 0) throw fieldError('logo', 'required');
  if (bytes.length > LOGO_MAX_BYTES) throw new AppError('payload_too_large', LOGO_TOO_LARGE);
  const type = sniffLogo(bytes);
  if (!type) throw fieldError('logo', 'refused', NOT_AN_IMAGE);
  if (declared !== undefined && declaredTypes[declared] !== type)
    throw fieldError(
      'logo',
      'refused',
      `The logo's Content-Type (${declared.slice(0, 100)}) does not match its content (${type}); send one of ${logoTypes.join(', ')}.`,
    );
  if (type !== 'image/svg+xml') return { type, body: bytes };
  const text = bytes.toString('utf8');
  if (declaresDocumentType(text))
    throw fieldError('logo', 'refused', 'An SVG logo must not declare a document type or entities.');
  const clean = await sanitizeSvg(text);
  if (clean === undefined) throw fieldError('logo', 'refused', 'The logo is not a valid SVG image.');
  return { type, body: Buffer.from(clean, 'utf8') };
}

const infoOf = (publicId: string, row: { digest: string; content_type: LogoType; size: number }) => ({
  url: logoPath(publicId, row.digest),
  content_type: row.content_type,
  size: row.size,
});

/**
 * Stores the program's logo, replacing any. `declared` is the Content-Type the client gave (an
 * API upload), or undefined (a browser's file, typed by its name).
 */
export async function uploadLogo(ctx: ProgramContext, bytes: Buffer, declared: string | undefined) {
  const { type, body } = await checkedLogo(bytes, declared);
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 20);
  const row = { digest, content_type: type, size: body.length };
  await repository.saveLogo(ctx.database.db, ctx.program.id, {
    ...row,
    body,
    updated_at: nowTimestamp(ctx.clock),
  });
  forgetPagePrograms(ctx.database);
  return infoOf(ctx.program.publicId, row);
}

/** Removes the program's uploaded logo (its logo URL, if set, is shown again); 404 without one. */
export async function removeLogo(ctx: ProgramContext) {
  const removed = await repository.deleteLogo(ctx.database.db, ctx.program.id, nowTimestamp(ctx.clock));
  if (!removed) throw new AppError('not_found', 'The program has no uploaded logo.');
  forgetPagePrograms(ctx.database);
}

/** The uploaded logo's URL (a path on Vouch), content type and size, or null. */
export async function getLogoInfo(ctx: ProgramContext) {
  const row = await repository.findLogoInfo(ctx.database.db, ctx.program.id);
  return row && isLogoType(row.content_type)
    ? infoOf(ctx.program.publicId, { ...row, content_type: row.content_type })
    : null;
}

/** The file of a program's logo by the program's public id, for the public logo URL. */
export async function getLogoFile(deps: Deps, publicId: string) {
  if (publicId.length > 64) return undefined;
  return repository.findLogoByPublicId(deps.database.db, publicId);
}
