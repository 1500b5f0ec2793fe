// Preloaded (--import) into a CLI process to make it offline: fetch to anything but loopback
// fails as it does with no network (DNS lookup failure), so tests never depend on, or use, the
// network.
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return realFetch(input, init);
  const cause = Object.assign(new Error(`getaddrinfo ENOTFOUND ${url.hostname}`), { code: 'ENOTFOUND', hostname: url.hostname });
  throw new TypeError('fetch failed', { cause });
};
