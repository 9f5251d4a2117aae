import { typedRecords, type RecordOf } from '../../store/typed-records.ts';

/** The onboarding steps, in the order clients walk them. */
export const ONBOARDING_STEPS = ['user', 'core_config', 'analytics', 'integration'] as const;
/** One onboarding step name. */
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

/** The stream holding onboarding progress. */
export const ONBOARDING_STREAM = 'auth/onboarding';

/** The records of the onboarding stream. */
export type OnboardingRecord = { type: 'onboarding_step_done'; data: { step: string } };
export const onboardingRecords = typedRecords<OnboardingRecord>(ONBOARDING_STREAM, { onboarding_step_done: true });

/** Which onboarding steps are done, rebuilt from `onboarding_step_done` records. */
export class Onboarding {
  private readonly done = new Set<string>();

  evolve(record: RecordOf<OnboardingRecord>): void {
    this.done.add(record.data.step);
  }

  isDone(step: OnboardingStep): boolean {
    return this.done.has(step);
  }

  /** True once any step is done. */
  started(): boolean {
    return this.done.size > 0;
  }

  snapshot(): string[] {
    return [...this.done];
  }

  restore(steps: string[]): void {
    this.done.clear();
    for (const step of steps) this.done.add(step);
  }
}
