// The Chromium the tests and the browser bench drive: Debian's (Playwright cannot download its
// own here), headless, with SwiftShader for WebGL2 and without the background services that
// would add noise. Shared by playwright.config.ts and scripts/bench/.

/** The browser binary (`CHROMIUM_PATH` overrides). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Its command-line flags. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
