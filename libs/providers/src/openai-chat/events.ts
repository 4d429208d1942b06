/**
 * Server-sent events as chat-completions streams them: the `data` of each event (its `data:`
 * lines joined by newlines), fed text as it arrives. Comments, `event:`, `id:` and `retry:`
 * lines are skipped; lines end with LF, CRLF or CR, as the event-stream format allows. An event
 * the stream ends in before its closing blank line is dropped, as the AI SDK drops it.
 */
export class EventDataSplitter {
  private buffered = '';
  private data: string[] = [];

  /** The data of every event the text completes. */
  push(text: string): string[] {
    const events: string[] = [];
    let start = 0;
    const all = this.buffered + text;
    // Where the next LF and CR are, each searched for again only once passed (most streams have no CR).
    let lf = all.indexOf('\n');
    let cr = all.indexOf('\r');
    for (;;) {
      if (lf !== -1 && lf < start) lf = all.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = all.indexOf('\r', start);
      const lineEnd = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      // A CR last may be the first half of a CRLF: the line ends when the next text shows which.
      if (lineEnd === -1 || (lineEnd === all.length - 1 && all[lineEnd] === '\r')) break;
      this.line(all.slice(start, lineEnd), events);
      start = lineEnd + (all[lineEnd] === '\r' && all[lineEnd + 1] === '\n' ? 2 : 1);
    }
    this.buffered = all.slice(start);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (!line.startsWith('data')) return;
    if (line.length === 4) this.data.push('');
    else if (line[4] === ':') this.data.push(line[5] === ' ' ? line.slice(6) : line.slice(5));
  }
}
