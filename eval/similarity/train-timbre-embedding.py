"""Train the timbre embedding (server/audio/dsp/timbre-embedding.ts) and write its weights and test fixture.

Reads the training patches that eval/similarity/embedding-patches.ts wrote (training libraries and extra FluidR3
renders only; the held-out libraries are never read), trains the small CNN as a classifier of (role, instrument
family) with augmentation, folds batch normalisation into the convolutions and writes:
  server/audio/dsp/timbre-embedding-weights.ts    the weights (generated; do not edit)
  server/audio/dsp/reference/timbre-embedding-fixture.ts  PyTorch's embeddings of the test clips, for timbre-embedding.test.ts

The test clips' mel patches are computed here by an independent NumPy twin of server/audio/dsp/mel-patch.ts, so
the fixture checks the TypeScript front end and network together against NumPy and PyTorch.

Needs Debian's python3-torch (run with /usr/bin/python3):
  CRATEHOUSE_REAL_AUDIO_CACHE=/path/to/cache /usr/bin/python3 eval/similarity/train-timbre-embedding.py [--seed 0] [--epochs 15] [--save F | --load F]
Two cores: about 2 minutes on a quiet machine. Bit-identical weights need the same PyTorch build and thread count.
"""
import argparse, base64, json, os, sys
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get('CRATEHOUSE_REAL_AUDIO_CACHE', os.path.join(REPO, '.cache', 'real-audio'))
BANDS, FRAMES, DIM, VERSION = 64, 128, 64, 1
CHANNELS = [1, 12, 24, 48, 48]


class Net(nn.Module):
    """The network of timbre-embedding.ts, with a classifier head for training."""

    def __init__(self, classes):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(CHANNELS[i], CHANNELS[i + 1], 3, padding=1) for i in range(4))
        self.bns = nn.ModuleList(nn.BatchNorm2d(CHANNELS[i + 1]) for i in range(4))
        self.emb = nn.Linear(8 * CHANNELS[-1] * 2, DIM)
        self.cls = nn.Linear(DIM, classes)

    def embed(self, x):
        x = F.avg_pool2d(x[:, None], (1, 2)) / 80.0 + 1.0  # 64 bands x 64 frames of 23 ms, dB to 0..1
        for i in range(4):
            x = F.relu(self.bns[i](self.convs[i](x)))
            if i < 3:
                x = F.max_pool2d(x, 2)
        return self.emb(torch.cat([x.mean(3), x.amax(3)], 1).flatten(1))  # per channel and band: mean, max over time

    def forward(self, x):
        return self.cls(F.relu(self.embed(x)))


def augment(x, rng):
    """A random start (up to 8 frames later), spectral tilt (+-6 dB across the bands), low-pass (30 %), a shift of
    up to 2 bands, and a random floor (-80..-50 dB): what differs between recordings of one instrument."""
    b, m, _ = x.shape
    sh = int(rng.integers(0, 9))
    x = torch.cat([x[:, :, sh:], torch.full((b, m, sh), -80.0)], 2)
    x = x + (torch.rand(b, 1, 1) * 12 - 6) * (torch.arange(m).float()[None, :, None] - 32) / 32
    lp = (torch.rand(b) < 0.3).float()
    k = torch.randint(24, 60, (b,))
    x = x - (torch.clamp(torch.arange(m)[None, :] - k[:, None], min=0).float() * torch.rand(b, 1) * 3 * lp[:, None])[:, :, None]
    fs = int(rng.integers(-2, 3))
    if fs:
        x = torch.roll(x, fs, 1)
    x = x - x.amax((1, 2), keepdim=True)
    return torch.maximum(x, -80 + torch.rand(b, 1, 1) * 30).clamp(-80, 0)


def train(seed, epochs):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    torch.set_num_threads(2)
    rows = json.load(open(os.path.join(CACHE, 'embedding', 'patches.json')))
    X = np.fromfile(os.path.join(CACHE, 'embedding', 'patches.f32'), '<f4').reshape(len(rows), BANDS, FRAMES)
    labels = np.array([f"{r['role']}/{r['family']}" if r['family'] else '' for r in rows])
    keep = labels != ''
    X, labels = X[keep], labels[keep]
    classes = sorted(set(labels))
    y = np.array([classes.index(c) for c in labels])
    print(f'{len(y)} patches, {len(classes)} classes', flush=True)
    net = Net(len(classes))
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-3)
    steps = epochs * ((len(y) + 63) // 64)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    xt, yt = torch.tensor(X), torch.tensor(y)
    weights = torch.tensor(1 / np.sqrt(np.bincount(y)[y]))  # classes drawn by 1/sqrt(count): rare families seen more
    for epoch in range(epochs):
        net.train()
        order = torch.multinomial(weights, len(y), replacement=True)
        total = 0.0
        for b in range(0, len(y), 64):
            j = order[b:b + 64]
            loss = F.cross_entropy(net(augment(xt[j], rng)), yt[j], label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(j)
        print(f'epoch {epoch + 1}/{epochs}: loss {total / len(y):.3f}', flush=True)
    net.eval()
    return net


# --- NumPy twin of mel-patch.ts, for the fixture -------------------------------------------------------------

def hz_to_mel(f):
    return f / (200 / 3) if f < 1000 else 15 + np.log(f / 1000) / (np.log(6.4) / 27)


def mel_to_hz(m):
    return m * (200 / 3) if m < 15 else 1000 * np.exp((m - 15) * (np.log(6.4) / 27))


def mel_bank(n_fft=2048, rate=44100, fmin=30, fmax=16000):
    lo, hi = hz_to_mel(fmin), hz_to_mel(fmax)
    edges = [mel_to_hz(lo + (hi - lo) * i / (BANDS + 1)) for i in range(BANDS + 2)]
    bin_hz, bank = rate / n_fft, np.zeros((BANDS, n_fft // 2 + 1))
    for b in range(BANDS):
        left, centre, right = edges[b:b + 3]
        for k in range(n_fft // 2 + 1):
            f = k * bin_hz
            if left <= f < right:
                bank[b, k] = (f - left) / (centre - left) if f <= centre else (right - f) / (right - centre)
        if not bank[b].any():
            bank[b, min(n_fft // 2, round(centre / bin_hz))] = 1
    return bank


def mel_patch(mono, rate):
    if rate != 44100:
        t = np.arange(int(len(mono) * 44100 // rate)) * (rate / 44100)
        i = np.floor(t).astype(int)
        a = mono[i]
        b = np.where(i + 1 < len(mono), mono[np.minimum(i + 1, len(mono) - 1)], a)
        mono = (a + (b - a) * (t - i)).astype(np.float32)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(2048) / 2048)
    padded = np.concatenate([np.zeros(1024), mono.astype(np.float64), np.zeros(2048 + 512 * FRAMES)])
    frames = np.stack([padded[t * 512:t * 512 + 2048] * window for t in range(FRAMES)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2 @ mel_bank().T  # (frames, bands)
    db = np.where(power > 0, 10 * np.log10(np.maximum(power, 1e-300) / power.max()), -80)
    return np.maximum(db, -80).T.astype(np.float32)


def test_clips():
    """The clips of server/audio/dsp/reference/timbre-test-signals.ts."""
    t = np.arange(round(1.2 * 44100)) / 44100
    pluck = 0.3 * sum(np.sin(2 * np.pi * 220 * k * t) / k for k in range(1, 13)) * np.exp(-3 * t)
    noise, seed = np.zeros(round(0.5 * 44100)), 12345
    for i in range(len(noise)):
        seed = (seed * 1103515245 + 12345) % 2 ** 32
        noise[i] = ((seed / 4294967296) * 2 - 1) * 0.5 * np.exp(-10 * (i % 11025) / 44100)
    t48 = np.arange(2 * 48000) / 48000
    organ = 0.2 * sum(np.sin(2 * np.pi * 330 * k * t48) / k for k in range(1, 10, 2))
    return [(pluck.astype(np.float32), 44100), (noise.astype(np.float32), 44100), (organ.astype(np.float32), 48000)]


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a, '<f4').tobytes()).decode()


def export(net):
    sd = net.state_dict()
    convs = []
    for i in range(4):
        w, b = sd[f'convs.{i}.weight'].numpy(), sd[f'convs.{i}.bias'].numpy()
        g, beta, mean, var = (sd[f'bns.{i}.{k}'].numpy() for k in ('weight', 'bias', 'running_mean', 'running_var'))
        s = g / np.sqrt(var + 1e-5)
        convs.append((w.shape[0], w.shape[1], w * s[:, None, None, None], (b - mean) * s + beta))
    ew, eb = sd['emb.weight'].numpy(), sd['emb.bias'].numpy()
    lines = [
        '/** Generated by eval/similarity/train-timbre-embedding.py: the trained weights of timbre-embedding.ts (little-endian float32, base64). Do not edit. */',
        "import type { TimbreEmbeddingWeights } from './timbre-embedding.js';",
        '',
        '/** Float32 values from base64. */',
        'const f32 = (b64: string): Float32Array => {',
        "  const b = Buffer.from(b64, 'base64');",
        '  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));',
        '};',
        '',
        f'/** The committed network (version {VERSION}). */',
        'export const timbreEmbeddingWeights: TimbreEmbeddingWeights = {',
        f'  version: {VERSION},',
        '  convs: [',
    ]
    for out, inp, w, b in convs:
        lines.append(f"    {{ out: {out}, in: {inp}, weight: f32('{b64(w)}'), bias: f32('{b64(b)}') }},")
    lines += ['  ],', f"  embedding: {{ out: {ew.shape[0]}, in: {ew.shape[1]}, weight: f32('{b64(ew)}'), bias: f32('{b64(eb)}') }},", '};', '']
    dsp = os.path.join(REPO, 'server', 'audio', 'dsp')
    open(os.path.join(dsp, 'timbre-embedding-weights.ts'), 'w').write('\n'.join(lines))
    patches = np.stack([mel_patch(m, r) for m, r in test_clips()])
    with torch.no_grad():
        expected = net.embed(torch.tensor(patches)).numpy()
    rows = ',\n'.join('  [' + ', '.join(repr(round(float(v), 6)) for v in e) + ']' for e in expected)
    open(os.path.join(dsp, 'reference', 'timbre-embedding-fixture.ts'), 'w').write(
        '/** Generated by eval/similarity/train-timbre-embedding.py. Only tests import it (rule `dsp-reference-is-for-tests`). */\n\n'
        f'/** The network version these were computed with. */\nexport const fixtureVersion = {VERSION};\n\n'
        '/** PyTorch embeddings (before scaling to unit length) of the NumPy mel patches of the clips of timbre-test-signals.ts, in order. */\n'
        f'export const expectedEmbeddings: readonly (readonly number[])[] = [\n{rows},\n];\n')
    print('wrote the weights and the fixture', flush=True)


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--epochs', type=int, default=15)
    ap.add_argument('--save', help='also save the PyTorch state to this file')
    ap.add_argument('--load', help='export a saved PyTorch state instead of training')
    args = ap.parse_args()
    if args.load:
        state = torch.load(args.load)
        model = Net(state['cls.weight'].shape[0])
        model.load_state_dict(state)
        model.eval()
    else:
        model = train(args.seed, args.epochs)
    if args.save:
        torch.save(model.state_dict(), args.save)
    export(model)
