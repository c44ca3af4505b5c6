// Saving a file the page made (an export, a zip, a fetched WAV, a project archive): a download
// through a temporary object URL. The desktop app's window turns it into its own save dialog.

/** Offer `blob` to the person as a download named `fileName`. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download reads the URL after click() returns; revoke it once it surely has.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
