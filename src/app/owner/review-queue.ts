import type { DraftSummary } from "../../store/drafts/index.js";
import { listDrafts } from "../../store/drafts/index.js";
import type { EditPlanOptions, EditPlanSummary } from "../../store/edits/index.js";
import { listPlans } from "../../store/edits/index.js";
import type { Store } from "../../store/store.js";

/** What waits for the owner's review (docs/http-api.md, "Review"). */
export interface ReviewQueue {
  /** Drafts the owner has not dealt with yet: disabled and untouched (not locked), by name. */
  readonly drafts: readonly DraftSummary[];
  /** Edit plans waiting for approval, oldest first (expired ones left out). */
  readonly plans: readonly EditPlanSummary[];
  /** The "Needs review" count: waiting drafts plus waiting plans. */
  readonly needsReview: number;
}

/**
 * The review queue: the assistant's drafts still waiting for the owner and the edit plans
 * not yet approved or rejected. A draft leaves the queue when the owner enables it or edits
 * it (either locks it for good); a plan leaves it when applied, rejected or expired.
 */
export async function reviewQueue(store: Store, options: EditPlanOptions = {}): Promise<ReviewQueue> {
  const drafts = (await listDrafts(store)).filter((draft) => !draft.enabled && !draft.locked);
  const plans = await listPlans(store, options);
  return { drafts, plans, needsReview: drafts.length + plans.length };
}
