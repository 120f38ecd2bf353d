#!/usr/bin/env node
// A browser stand-in for $BROWSER: it "opens" the authorization URL the
// relay hands it by fetching it and following the redirects, as a browser
// whose user clicks Allow would. The suite's authorization server approves
// at once and redirects to the relay's loopback callback.
const url = process.argv[2];
if (!url) {
  console.error('browser.mjs: no URL given');
  process.exit(2);
}
try {
  const res = await fetch(url, { redirect: 'follow' });
  await res.text();
  if (!res.ok) {
    console.error(`browser.mjs: ${res.status} from ${new URL(res.url).origin}`);
    process.exit(1);
  }
} catch (e) {
  console.error(`browser.mjs: ${e.message}`);
  process.exit(1);
}
