import { expect, type Page } from '@playwright/test';

// e2e/ is type-checked without DOM types; this callback runs in the page, where document exists.
declare const document: { readonly documentElement: { readonly scrollWidth: number; readonly clientWidth: number } };

/**
 * Uncaught exceptions in the page and Content-Security-Policy violations (the GUI runs under a strict
 * policy), collected for a test to assert none happened (failed requests do not count).
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (isCspViolation(message.text())) errors.push(`CSP: ${message.text()}`);
  });
  return errors;
}

/** Content-Security-Policy violations Chromium reports on the page's console. */
export function collectCspViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (isCspViolation(message.text())) violations.push(message.text());
  });
  return violations;
}

function isCspViolation(text: string): boolean {
  return /Content Security Policy/i.test(text);
}

/** The page does not scroll sideways at the current viewport. */
export async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, 'the page scrolls sideways').toBeLessThanOrEqual(0);
}

/** The viewports every screen is checked and photographed at: desktop, tablet, phone. */
export const producerViewports = [
  { width: 1440, height: 900 },
  { width: 768, height: 1024 },
  { width: 390, height: 844 },
] as const;
