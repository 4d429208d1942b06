import { Injectable } from '@nestjs/common';

/** The time, injectable so tests can move to the next UTC day without waiting for it. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
