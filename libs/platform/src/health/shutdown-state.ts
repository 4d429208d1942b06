import { Injectable } from '@nestjs/common';

/** Set when the process has been asked to stop: readiness turns false at once. */
@Injectable()
export class ShutdownState {
  private drainingSince?: Date;

  beginDrain(): void {
    this.drainingSince ??= new Date();
  }

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }
}
