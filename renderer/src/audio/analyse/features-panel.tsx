import { useMemo } from 'react';
import type { AnalyzeResponse } from '../../api/audio';
import { featureGroups, type FeatureRow } from './feature-rows';

function ChromaBars({ row }: { readonly row: FeatureRow }) {
  return (
    <span className="an-chroma" role="img" aria-label={row.value}>
      {row.chroma?.map((c) => (
        <span key={c.pitchClass} className="an-chroma-col">
          <span className="an-chroma-track">
            <span className="an-chroma-bar" style={{ height: `${Math.max(4, c.value * 100)}%` }} />
          </span>
          <span className="an-chroma-pc mono">{c.pitchClass}</span>
        </span>
      ))}
    </span>
  );
}

/** The /analyze features as compact tables, one per group, each value with the answer's unit. */
export function FeaturesPanel({ features }: { readonly features: AnalyzeResponse['features'] }) {
  const groups = useMemo(() => featureGroups(features), [features]);
  return (
    <div className="an-features">
      {groups.map((group) => (
        <table key={group.key} className="data an-feature-table">
          <caption>{group.title}</caption>
          <tbody>
            {group.rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">{row.label}</th>
                {row.chroma || row.values ? (
                  // Many values: they get the value and unit columns together, the unit after them.
                  <td colSpan={2} className={row.chroma ? 'an-chroma-cell' : 'an-feature-list'}>
                    {row.chroma ? (
                      <ChromaBars row={row} />
                    ) : (
                      <span className="an-entries">
                        {row.values?.map((entry) => (
                          <span key={entry.label} className="an-entry">
                            <span className="an-entry-label">{entry.label}</span> <span className="mono">{entry.value}</span>
                          </span>
                        ))}
                      </span>
                    )}
                    {row.unit ? <span className="an-unit-after muted">{row.unit}</span> : null}
                  </td>
                ) : (
                  <>
                    <td className="num mono an-feature-value">{row.value}</td>
                    <td className="an-unit muted">{row.unit ?? ''}</td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      ))}
      <p className="help an-features-note">
        From the first {Math.round(features.duration_analysed_s * 10) / 10} s of the file ({features.stft.frames} frames of 2048, hop 512).
      </p>
    </div>
  );
}
