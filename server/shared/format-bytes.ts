/** A size for a message: whole GiB when exact, else rounded MiB, or KiB below one MiB. */
export function formatBytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2) return `${Math.round(n / 1024 ** 2)} MiB`;
  return `${Math.round(n / 1024)} KiB`;
}
