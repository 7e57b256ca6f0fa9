/**
 * A growing byte buffer with a cap: bytes past the cap are counted, not kept. Appending copies into a
 * buffer that doubles, so building a value of n bytes from many small pieces costs O(n), not O(n²).
 */
export class ByteBuffer {
  private buffer: Uint8Array;
  private kept = 0;
  /** Every byte appended, kept or not. */
  total = 0;
  /** The last byte appended (kept or not), or -1. */
  last = -1;

  constructor(private readonly cap: number) {
    this.buffer = new Uint8Array(Math.min(256, Math.max(cap, 0)));
  }

  get length(): number {
    return this.kept;
  }

  /** Whether some appended bytes were not kept. */
  get overflowed(): boolean {
    return this.total > this.kept;
  }

  append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.total += bytes.length;
    this.last = bytes[bytes.length - 1]!;
    const room = this.cap - this.kept;
    if (room <= 0) return;
    const take = bytes.length <= room ? bytes : bytes.subarray(0, room);
    const needed = this.kept + take.length;
    if (needed > this.buffer.length) {
      let size = this.buffer.length * 2 || 256;
      while (size < needed) size *= 2;
      const grown = new Uint8Array(Math.min(size, this.cap));
      grown.set(this.buffer.subarray(0, this.kept));
      this.buffer = grown;
    }
    this.buffer.set(take, this.kept);
    this.kept = needed;
  }

  /** Forgets the last byte appended (a quoted-printable soft line break's `=`). */
  dropLast(): void {
    if (this.total === 0) return;
    if (this.total === this.kept) this.kept--;
    this.total--;
    this.last = this.kept > 0 && this.total === this.kept ? this.buffer[this.kept - 1]! : -1;
  }

  /** The kept bytes (a view: valid until the next append). */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.kept);
  }
}
