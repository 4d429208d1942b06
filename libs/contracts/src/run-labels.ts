import { IsOptional, IsString, Length } from 'class-validator';
import { IsFlatMetadata, type FlatMetadata } from './flat-metadata';

/** What a request mixin (`WithRunLabels`, `WithRotationOverlap`) extends: any request class. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mixin's base takes any constructor arguments
export type RequestBase = new (...args: any[]) => object;

/** What every run carries besides its input, however it is started (invoke, webhook; prompt, agent, workflow). */
export function WithRunLabels<TBase extends RequestBase>(Base: TBase) {
  class LabelledRun extends Base {
    @IsOptional()
    @IsFlatMetadata()
    metadata?: FlatMetadata;

    /** decisions: the run's user label, recorded and filterable, never given to a model. */
    @IsOptional()
    @IsString()
    @Length(0, 256)
    user?: string;
  }
  return LabelledRun;
}

/** A run's flat metadata and user label, for a request with no other base. */
export class RunLabels extends WithRunLabels(class {}) {}
