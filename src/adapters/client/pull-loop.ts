import type { ExecutionClaim, ExecutionsApi } from './executions-api.js';
import type { WorkerEvent } from './worker-options.js';

export interface Intake {
  api: ExecutionsApi;
  consumerId: string;
  filter: { missionId?: string; triggerId?: string };
  waitSeconds: number;
  stopped: () => boolean;
  /** Starts the handler for a claim in a free slot; resolves when it has ended. */
  run: (claim: ExecutionClaim) => Promise<void>;
  report: (event: WorkerEvent) => void;
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One of `concurrency` long-poll loops over `claim-next`. A poll in flight is never aborted: the service
 * may have claimed for us, and a claim never expires (EX-2), so its answer must reach a handler.
 */
export async function pullLoop(intake: Intake): Promise<void> {
  while (!intake.stopped()) {
    try {
      const claim = await intake.api.claimNext({
        consumerId: intake.consumerId,
        ...intake.filter,
        waitSeconds: intake.waitSeconds,
      });
      if (claim) await intake.run(claim);
    } catch (error) {
      intake.report({ type: 'error', error });
      await pause(1000);
    }
  }
}
