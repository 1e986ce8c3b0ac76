/*
 * Vouch tracking script. Put it on the company's site:
 *   <script src="https://VOUCH_HOST/js/vouch.js" data-program="PROGRAM_PUBLIC_ID" async></script>
 * On a page opened with ?aff=KEY (partners) or ?ref=KEY (refer-a-friend; data-param names other
 * parameters, comma-separated) it reports the visit to Vouch, stores the key in the vouch_partner /
 * vouch_referral cookie on this site's own domain (for the program's cookie lifetime, first or last
 * click as the program says), exposes it as window.Vouch.referral (also window.vouch.referral) and
 * fills every input named vouch_referral, so a sign-up form hands the key to the company's backend
 * without code. The click's id goes to the vouch_click cookie (window.Vouch.click, inputs named
 * vouch_click): the backend forwards it as context.click_id for the fraud rules. Stripe Checkout links on the page (Payment Links, buy.stripe.com) get it as
 * ?client_reference_id=KEY, and Stripe's pricing table and buy button as client-reference-id, so
 * the checkout.session.completed event Vouch receives carries it.
 * No dependencies, no build step.
 */
(() => {
  const script = document.currentScript;
  if (!script) return;
  const origin = new URL(script.src, location.href).origin;
  const program = script.getAttribute('data-program') || '';
  const params = (script.getAttribute('data-param') || 'aff,ref').split(',').map((p) => p.trim());
  const cookies = ['vouch_partner', 'vouch_referral'];
  const clickCookie = 'vouch_click';

  const readCookie = (name) => {
    for (const part of document.cookie ? document.cookie.split('; ') : []) {
      const eq = part.indexOf('=');
      if (part.slice(0, eq) !== name) continue;
      try {
        return decodeURIComponent(part.slice(eq + 1));
      } catch {
        return undefined;
      }
    }
    return undefined;
  };

  const writeCookie = (name, value, days) => {
    const secure = location.protocol === 'https:' ? '; Secure' : '';
    const maxAge = String(Math.round(days * 86400));
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser.
    document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${maxAge}; Path=/; SameSite=Lax${secure}`;
  };

  const stored = () => {
    for (const name of cookies) {
      const value = readCookie(name);
      if (value) return value;
    }
    return null;
  };

  const vouch = window.Vouch || window.vouch || {};
  window.Vouch = vouch;
  window.vouch = vouch;

  const stripeCheckout = /^https:\/\/(buy|checkout)\.stripe\.com\//;
  // Stripe accepts a client_reference_id of up to 200 letters, digits, dashes and underscores.
  const referenceable = /^[A-Za-z0-9_-]{1,200}$/;

  const fill = () => {
    const key = stored();
    vouch.referral = key;
    if (!key) return;
    for (const input of document.querySelectorAll('input[name="vouch_referral"]')) input.value = key;
    vouch.click = readCookie(clickCookie) || null;
    if (vouch.click) {
      for (const input of document.querySelectorAll('input[name="vouch_click"]')) input.value = vouch.click;
    }
    if (!referenceable.test(key)) return;
    for (const link of document.querySelectorAll('a[href]')) {
      if (!stripeCheckout.test(link.href)) continue;
      const url = new URL(link.href);
      url.searchParams.set('client_reference_id', key);
      link.href = url.toString();
    }
    for (const element of document.querySelectorAll('stripe-pricing-table, stripe-buy-button')) {
      element.setAttribute('client-reference-id', key);
    }
  };

  vouch.referral = stored();
  vouch.click = readCookie(clickCookie) || null;
  vouch.program = program;
  vouch.fill = fill;

  const query = new URLSearchParams(location.search);
  const key = params.map((p) => query.get(p)).find((value) => value) || null;

  const ready = new Promise((resolve) => {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', resolve);
    else resolve();
  });

  let reported = Promise.resolve();
  if (key && program && key.length <= 255) {
    // The landing URL lets Vouch see ad click ids (gclid, fbclid…) for the paid_ads rule.
    const url =
      /^https?:$/.test(location.protocol) && location.href.length <= 2048 ? location.href : undefined;
    // text/plain keeps this a simple request: no CORS preflight before the click is counted.
    reported = fetch(`${origin}/t/click`, {
      method: 'POST',
      mode: 'cors',
      credentials: 'omit',
      keepalive: true,
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify({ program, key, url }),
    })
      .then((response) => (response.ok ? response.json() : null))
      .then((answer) => {
        const data = answer?.data;
        if (!data?.cookie) return;
        if (data.attribution === 'first_click' && readCookie(data.cookie)) return;
        writeCookie(data.cookie, data.key, data.cookie_lifetime);
        if (data.click_id) writeCookie(clickCookie, data.click_id, data.cookie_lifetime);
      })
      .catch(() => undefined);
  }
  vouch.ready = Promise.all([ready, reported]).then(fill);
})();
