import type { AnalyzeResponse } from '../../api/audio';
import { formatFixed, formatPercent, humanize, planePoint } from './readouts';

type Emotion = AnalyzeResponse['emotion'];

const SIZE = 200;

/**
 * The emotion anchors of the server's transparent model (server/audio/engines/emotion-model.ts, valence and
 * arousal): drawn for orientation only when that model answered, since another model may place them elsewhere.
 */
const transparentAnchors: readonly (readonly [string, number, number])[] = [
  ['happy', 0.75, 0.45],
  ['excited', 0.45, 0.85],
  ['tense', -0.55, 0.75],
  ['angry', -0.75, 0.6],
  ['sad', -0.7, -0.45],
  ['melancholic', -0.35, -0.6],
  ['calm', 0.45, -0.65],
  ['dreamy', 0.15, -0.45],
  ['neutral', 0, 0],
];

/** Valence and arousal as a point on the plane, with the three nearest emotions. */
export function EmotionPanel({ emotion }: { readonly emotion: Emotion }) {
  const point = planePoint(emotion.valence, emotion.arousal, SIZE);
  return (
    <div className="an-emotion">
      <figure className="an-plane-figure">
        <svg
          className="an-plane"
          viewBox={`-28 -8 ${SIZE + 36} ${SIZE + 30}`}
          role="img"
          aria-label={`Valence ${formatFixed(emotion.valence, 2)}, arousal ${formatFixed(emotion.arousal, 2)}`}
        >
          <rect x={0} y={0} width={SIZE} height={SIZE} className="an-plane-bg" rx={6} />
          <line x1={SIZE / 2} y1={0} x2={SIZE / 2} y2={SIZE} className="an-plane-axis" />
          <line x1={0} y1={SIZE / 2} x2={SIZE} y2={SIZE / 2} className="an-plane-axis" />
          {emotion.model.id === 'transparent'
            ? transparentAnchors.map(([name, valence, arousal]) => {
                const anchor = planePoint(valence, arousal, SIZE);
                return (
                  <g key={name} className="an-plane-anchor">
                    <circle cx={anchor.x} cy={anchor.y} r={2.5} />
                    <text x={anchor.x} y={anchor.y + 13} textAnchor="middle">
                      {name}
                    </text>
                  </g>
                );
              })
            : null}
          <text x={SIZE / 2} y={SIZE + 18} className="an-plane-title" textAnchor="middle">
            valence →
          </text>
          <text x={-10} y={SIZE / 2} className="an-plane-title" textAnchor="middle" transform={`rotate(-90 -10 ${SIZE / 2})`}>
            arousal →
          </text>
          <circle cx={point.x} cy={point.y} r={14} className="an-plane-halo" />
          <circle cx={point.x} cy={point.y} r={6} className="an-plane-dot" />
        </svg>
      </figure>
      <div className="an-emotion-side">
        <dl className="an-pairs an-pairs-tight">
          <div>
            <dt>Valence</dt>
            <dd className="mono">{formatFixed(emotion.valence, 2)}</dd>
          </div>
          <div>
            <dt>Arousal</dt>
            <dd className="mono">{formatFixed(emotion.arousal, 2)}</dd>
          </div>
        </dl>
        <ol className="an-shares" aria-label="Top emotions">
          {emotion.top.map((entry) => (
            <li key={entry.emotion} className="an-share">
              <span className="an-share-label">{humanize(entry.emotion)}</span>
              <span className="an-bar" aria-hidden="true">
                <span className="an-bar-fill" style={{ width: `${entry.score * 100}%` }} />
              </span>
              <span className="mono small">{formatPercent(entry.score)}</span>
            </li>
          ))}
        </ol>
        <p className="help">
          {emotion.model.trained
            ? `Model ${emotion.model.id} ${emotion.model.version}.`
            : 'A documented mapping from tempo, loudness, mode and brightness, not a trained model.'}
        </p>
      </div>
    </div>
  );
}
