import net from 'node:net';

/** True when `port` can be bound on `host` right now. */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * The port for the embedded server: the one it used last time when it is still free (plugins that
 * remembered the URL keep working), otherwise 0 so the OS picks a free one at listen time.
 */
export async function choosePort(host: string, previous: number | null): Promise<number> {
  if (previous !== null && Number.isInteger(previous) && previous >= 1024 && previous <= 65535 && (await isPortFree(host, previous)))
    return previous;
  return 0;
}
