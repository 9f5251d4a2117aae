import { SupervisorError } from '../errors.ts';

/**
 * The job group `backup_manager`: one backup, restore, freeze or import at a time. Creation and
 * restore take the same lock; a second one is refused at once with the original's words.
 */
export class BackupManagerLock {
  private holder: string | null = null;

  get busy(): boolean {
    return this.holder !== null;
  }

  /** Takes the lock for `what` (a job name) or throws the group error; the release is returned. */
  acquire(what: string): () => void {
    if (this.holder !== null) throw new SupervisorError('Another job is running for job group backup_manager');
    this.holder = what;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holder = null;
    };
  }
}
