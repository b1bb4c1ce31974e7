import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authorGroups, STYLE_F_IDS } from '../../bench/speech-acts-cv.js';
import { devIds, notForTuning, RETIRED_HELD_OUT_IDS_8, RETIRED_HELD_OUT_IDS_9, RETIRED_HELD_OUT_IDS_10, RETIRED_HELD_OUT_IDS_11, RETIRED_HELD_OUT_IDS_12, RETIRED_HELD_OUT_IDS_13, RETIRED_HELD_OUT_IDS_14 } from '../../bench/support/analysis-sets.js';

describe('author-grouped cross-validation of the speech-act model', () => {
  it('puts every dev dialogue in exactly one writer group and no held-out dialogue in any', () => {
    const groups = authorGroups();
    const all = groups.flatMap((g) => g.ids);
    assert.equal(new Set(all).size, all.length);
    assert.deepEqual([...all].sort(), devIds());
    const held = notForTuning();
    assert.ok(all.every((id) => !held.has(id)));
  });

  it('keeps each retired held-out set and the style F calls together, one group each', () => {
    const groups = authorGroups();
    const find = (ids: readonly string[]) => groups.filter((g) => ids.some((id) => g.ids.includes(id)));
    for (const ids of [RETIRED_HELD_OUT_IDS_8, RETIRED_HELD_OUT_IDS_9, RETIRED_HELD_OUT_IDS_10, RETIRED_HELD_OUT_IDS_11, RETIRED_HELD_OUT_IDS_12, RETIRED_HELD_OUT_IDS_13, RETIRED_HELD_OUT_IDS_14, STYLE_F_IDS]) {
      const hit = find(ids);
      assert.equal(hit.length, 1);
      assert.deepEqual([...hit[0].ids].sort(), [...ids].sort());
    }
  });
});
