// audio-type ships no type declarations.
declare module 'audio-type' {
  /** The audio format of a file's first bytes (`wav`, `mp3`, `flac`, `oga`, …), or undefined. */
  export default function audioType(buf: Uint8Array | ArrayBuffer): string | undefined;
}
