import { describe, expect, it } from 'vitest';
import { isAppUrl, isExternalSafe } from './navigation.js';

describe('window navigation rules', () => {
  it('keeps only the embedded server’s origin inside the window', () => {
    expect(isAppUrl('http://127.0.0.1:50123/projects', 'http://127.0.0.1:50123')).toBe(true);
    expect(isAppUrl('http://127.0.0.1:50124/', 'http://127.0.0.1:50123')).toBe(false);
    expect(isAppUrl('http://localhost:50123/', 'http://127.0.0.1:50123')).toBe(false);
    expect(isAppUrl('https://example.com/', 'http://127.0.0.1:50123')).toBe(false);
    expect(isAppUrl('not a url', 'http://127.0.0.1:50123')).toBe(false);
  });

  it('hands only web and mail links to the system', () => {
    expect(isExternalSafe('https://docs.example.com/x')).toBe(true);
    expect(isExternalSafe('mailto:hi@example.com')).toBe(true);
    expect(isExternalSafe('file:///etc/passwd')).toBe(false);
    expect(isExternalSafe('javascript:alert(1)')).toBe(false);
    expect(isExternalSafe('smb://nas/share')).toBe(false);
  });
});
