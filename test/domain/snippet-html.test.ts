// The search snippet's HTML: ts_headline output with sentinel markers escaped piece by piece.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml, snippetHtml } from '../../src/domain/search.js';

test('text is escaped, sentinels become <mark>/</mark>, unbalanced sentinels never leave an open tag', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  assert.equal(snippetHtml('say \u0001fish\u0002 & <mark>chips</mark>'), 'say <mark>fish</mark> &amp; &lt;mark&gt;chips&lt;/mark&gt;');
  assert.equal(snippetHtml('\u0002a \u0001b \u0001c'), 'a <mark>b c</mark>');
  assert.equal(snippetHtml(''), '');
});
