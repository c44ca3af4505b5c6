import { describe, expect, it } from 'vitest';
import { toArtifactName, isSafeArtifactName } from '../artifacts/artifact-store.js';
import { discoverCandidates, rankCandidates } from './discover-candidates.js';
import { kindFromContentType, sniffMedia } from './sniff-media.js';

const page = 'https://music.example.com/releases/night-drive/';

describe('discoverCandidates', () => {
  it('finds audio, video, source, og:audio/og:video and media <link>s, resolved against the page', () => {
    const { title, candidates } = discoverCandidates(
      `<html><head><title> Night  Drive </title>
       <meta property="og:audio" content="https://cdn.example.com/nd-preview.mp3">
       <meta property="og:audio:type" content="audio/mpeg">
       <meta property="og:video:url" content="/video/nd.mp4"><meta property="og:video:duration" content="215">
       <link rel="alternate" type="audio/flac" href="../night-drive.flac"><link rel="alternate" type="application/rss+xml" href="/feed">
       </head><body>
       <audio src="a.ogg"></audio>
       <video><source src="/v/clip.webm" type="video/webm"></video>
       <audio><source src="data:audio/wav;base64,AAAA"><source src="javascript:alert(1)"><source src="a.ogg#t=10"></audio>
       <source src="/orphan.mp3">
       </body></html>`,
      page,
    );
    expect(title).toBe('Night  Drive');
    expect(candidates.map((c) => [c.via, c.url, c.mediaType, c.video])).toEqual([
      ['og:audio', 'https://cdn.example.com/nd-preview.mp3', 'audio/mpeg', false],
      ['og:video', 'https://music.example.com/video/nd.mp4', 'video/mp4', true],
      ['link', 'https://music.example.com/releases/night-drive.flac', 'audio/flac', false],
      ['audio', 'https://music.example.com/releases/night-drive/a.ogg', 'audio/ogg', false],
      ['source', 'https://music.example.com/v/clip.webm', 'video/webm', true],
    ]);
    expect(candidates.find((c) => c.via === 'og:video')?.durationS).toBe(215);
    expect(candidates.find((c) => c.via === 'link')?.lossless).toBe(true);
  });

  it('uses <base href>, decodes entities and prefers og:title', () => {
    const { title, candidates } = discoverCandidates(
      `<head><base href="https://files.example.net/stems/"><meta property="og:title" content="Dusk &amp; Dawn"><title>ignored</title></head>
       <audio src="dusk%20mix.wav?x=1&amp;y=2"></audio>`,
      page,
    );
    expect(title).toBe('Dusk & Dawn');
    expect(candidates[0]?.url).toBe('https://files.example.net/stems/dusk%20mix.wav?x=1&y=2');
  });
});

describe('rankCandidates', () => {
  it('lossless first, then declared bitrate (attribute or label), then duration, then audio before video', () => {
    const { candidates } = discoverCandidates(
      `<video src="/clip.mp4" data-duration="400"></video>
       <audio><source src="/a-128.mp3" data-bitrate="128000"><source src="/a.mp3" label="320 kbps"><source src="/b.mp3" data-bitrate="192"></audio>
       <audio src="/long.ogg" data-duration="300"></audio><audio src="/short.ogg" data-duration="30"></audio>
       <audio><source src="/master.aiff"></audio>`,
      page,
    );
    expect(rankCandidates(candidates).map((c) => new URL(c.url).pathname)).toEqual([
      '/master.aiff',
      '/a.mp3',
      '/b.mp3',
      '/a-128.mp3',
      '/clip.mp4',
      '/long.ogg',
      '/short.ogg',
    ]);
  });
});

describe('sniffMedia', () => {
  const bytes = (s: string, pad = 16) => Buffer.concat([Buffer.from(s, 'latin1'), Buffer.alloc(pad)]);
  it.each([
    [bytes('RIFF\x24\x00\x00\x00WAVEfmt '), 'audio/wav'],
    [bytes('fLaC\x00\x00\x00\x22'), 'audio/flac'],
    [bytes('OggS\x00\x02'), 'audio/ogg'],
    [bytes('ID3\x04\x00'), 'audio/mpeg'],
    [Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]), 'audio/mpeg'],
    [Buffer.from([0xff, 0xf1, 0x50, 0x80, 0, 0, 0, 0]), 'audio/aac'],
    [bytes('\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00'), 'audio/mp4'],
    [bytes('\x00\x00\x00\x20ftypisom\x00\x00\x02\x00'), 'video/mp4'],
    [bytes('FORM\x00\x00\x10\x00AIFFCOMM'), 'audio/aiff'],
    [Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from('....B\x82\x84webm')]), 'video/webm'],
  ])('recognises %#: %s', (head, type) => {
    expect(sniffMedia(head)).toEqual({ kind: 'media', mediaType: type });
  });

  it('recognises HTML after whitespace and a BOM, and nothing else', () => {
    expect(sniffMedia(Buffer.from('\uFEFF  \n<!DOCTYPE html><html>')).kind).toBe('html');
    expect(sniffMedia(Buffer.from('<html lang="en">')).kind).toBe('html');
    expect(sniffMedia(Buffer.from('{"json": true}')).kind).toBe('other');
    expect(sniffMedia(Buffer.from([0x89, 0x50, 0x4e, 0x47])).kind).toBe('other');
    expect(sniffMedia(Buffer.alloc(0)).kind).toBe('other');
  });

  it('reads Content-Type: generic types say nothing', () => {
    expect(kindFromContentType('audio/mpeg')).toBe('media');
    expect(kindFromContentType('video/mp4; codecs="avc1"')).toBe('media');
    expect(kindFromContentType('text/html; charset=utf-8')).toBe('html');
    expect(kindFromContentType('application/octet-stream')).toBeNull();
    expect(kindFromContentType(undefined)).toBeNull();
    expect(kindFromContentType('image/png')).toBe('other');
  });
});

describe('artifact names', () => {
  it('turns titles into safe names and refuses names that could leave the folder', () => {
    expect(toArtifactName('Dusk & Dawn (Extended Mix).mp3', 'wav')).toBe('Dusk-Dawn-(Extended-Mix).wav');
    expect(toArtifactName('Ça va — été', 'wav')).toBe('Ca-va-ete.wav');
    expect(toArtifactName('../../etc/passwd', 'wav')).toBe('etc-passwd.wav');
    expect(toArtifactName('....', 'wav')).toBe('source.wav');
    expect(toArtifactName('', 'wav')).toBe('source.wav');
    for (const bad of ['..', '../x.wav', '.hidden', 'a/b.wav', 'a\\b.wav', '', 'x..y.wav'])
      expect(isSafeArtifactName(bad), bad).toBe(false);
    expect(isSafeArtifactName('Night-Drive-(demo).wav')).toBe(true);
  });
});
