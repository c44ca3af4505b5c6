import type { Me } from '../api/client';
import { formatAudioSeconds, formatCount } from '../lib/format';
import { Fact } from './fact';

/** The tenant's usage from /me (requests and audio analysed), optionally led by the tenant's id. */
export function UsageStats({ me, showTenant = false }: { readonly me: Me; readonly showTenant?: boolean }) {
  return (
    <dl className="stats">
      {showTenant ? (
        <Fact term="Tenant">
          <span className="mono">{me.tenant.id}</span>
        </Fact>
      ) : null}
      <Fact term="Requests">
        <span className="stat-value">{formatCount(me.usage.requests_total)}</span>
      </Fact>
      <Fact term="Audio analysed">
        <span className="stat-value">{formatAudioSeconds(me.usage.audio_seconds)}</span>
      </Fact>
    </dl>
  );
}
