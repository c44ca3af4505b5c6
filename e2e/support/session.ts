import type { Page } from '@playwright/test';

// e2e/ is type-checked without DOM types; this callback runs in the page, where localStorage exists.
declare const localStorage: { setItem(key: string, value: string): void };

/** Sign the page in before it loads, as a person who signed in earlier (the token is remembered). */
export async function signInBeforeLoad(page: Page, token: string): Promise<void> {
  await page.addInitScript((value) => {
    localStorage.setItem('cratehouse.token', value);
  }, token);
}
