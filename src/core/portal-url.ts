/**
 * The partner portal of an affiliate program: on its own host when it has a `portal_host` (the
 * portal module serves it at `/` there), else `/p/{public id}` on Vouch's base URL. A portal host
 * is taken to be on HTTPS, as a public host name is, unless `PUBLIC_URL` itself is plain HTTP
 * (a local or internal set-up, where the portal host is likely plain HTTP too).
 */
export function partnerPortalUrl(
  baseUrl: string,
  publicId: string,
  portalHost: string | null = null,
  publicUrl?: string,
) {
  if (portalHost === null) return `${baseUrl}/p/${publicId}`;
  const scheme = publicUrl?.startsWith('http://') ? 'http' : 'https';
  return `${scheme}://${portalHost}/`;
}
