// The web console in a real browser (Debian's chromium driven by playwright-core), against the
// service as `npm start` runs it (`node --import tsx src/main.ts`): a person uploads a call, reads,
// hears and corrects it, ticks an action item, searches; every page's main path; an admin action and
// sign-in in identity-provider mode against a local stand-in of the provider's web sign-in; axe-core
// on every page (no serious or critical violation). Screenshots go to .cache/test-artifacts/console.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { projectRoot } from '../support/corpus.js';
import { freePort, spawnService, waitHealthy, type ServiceProcess } from '../support/process.js';
import { tempDir, TestIdp } from '../support/service.js';
import { renderShortCall } from '../support/short-calls.js';
import { IdentityToolkitStandIn } from '../support/identity-toolkit.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const artifacts = path.join(projectRoot, '.cache/test-artifacts/console');
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

async function startService(env: Record<string, string>): Promise<{ url: string; proc: ServiceProcess; dataDir: string }> {
  const port = await freePort();
  const dataDir = tempDir('cas-console-');
  const proc = spawnService({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, SERVICE_ENV: 'development', ...env });
  await waitHealthy(port, proc, 120_000);
  return { url: `http://127.0.0.1:${port}`, proc, dataDir };
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** axe-core in the page: the serious and critical violations, described. */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol, which the page's CSP does not govern
  // (an injected <script> would be refused by it, as it should be).
  await page.evaluate(axeSource);
  return page.evaluate<string[]>(`axe.run().then((r) => r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
}

let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--autoplay-policy=no-user-gesture-required'] });
});
after(async () => {
  await browser?.close();
});

describe('console, local development mode', () => {
  let svc: Awaited<ReturnType<typeof startService>>;
  let page: Page;
  const audio = renderShortCall([
    { voice: 'slt', text: 'Hello, this is the garden center. How can I help you today?' },
    { voice: 'kal16', text: 'I would like to order ten bags of soil for my garden please.' },
    { voice: 'slt', text: 'Of course. I will send you the invoice by email tomorrow.' },
  ]);
  let callId = '';

  before(async () => {
    svc = await startService({ WORKER_ENABLED: 'true' });
    page = await browser.newPage();
    page.on('pageerror', (err) => console.error('page error:', err.message));
  });
  after(async () => {
    await page?.close();
    await svc?.proc.kill('SIGTERM');
    fs.rmSync(svc.dataDir, { recursive: true, force: true });
  });

  test('every asset is served by the service, with a content security policy and no CDN', async () => {
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const res = await page.goto(`${svc.url}/`);
    assert.equal(res?.status(), 200);
    const csp = res!.headers()['content-security-policy'];
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-eval/);
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
    await page.getByRole('note').filter({ hasText: 'Development mode' }).waitFor();
    assert.ok(requests.every((u) => u.startsWith(svc.url)), requests.filter((u) => !u.startsWith(svc.url)).join(', '));
    const asset = requests.find((u) => u.includes('/assets/') && u.endsWith('.js'))!;
    const a = await fetch(asset, { headers: { 'accept-encoding': 'br' } });
    assert.match(a.headers.get('cache-control') ?? '', /immutable/);
    assert.equal(a.headers.get('content-encoding'), 'br');
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, '01-calls-empty');
  });

  test('a person uploads a call with its contact (picked from their contacts) and direction, sees it processed and opens it', async () => {
    // A contact of the user's, offered by the form's contact field, whose number comes along.
    const made = await page.evaluate(async () => (await fetch('/api/contacts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Maple Street Nursery', phoneNumber: '+1 555 0100' }) })).status);
    assert.equal(made, 201);
    await page.reload();
    const form = page.getByRole('form', { name: 'New call' });
    await form.locator('datalist option[value="Maple Street Nursery"]').waitFor({ state: 'attached' });
    await form.getByLabel('Recording').setInputFiles(audio.wavPath);
    await form.getByLabel('Contact (optional)').fill('Maple Street Nursery');
    assert.equal(await form.getByLabel('Phone number (optional)').inputValue(), '+1 555 0100');
    await form.getByRole('radio', { name: 'Outgoing' }).check();
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, '01b-upload-form');
    await form.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('status').filter({ hasText: 'Uploaded' }).waitFor();
    const link = page.locator('ul.calls a').first();
    await link.waitFor();
    callId = (await link.getAttribute('href'))!.split('/').pop()!;
    assert.match(callId, /^[0-9a-f-]{36}$/);
    const detail = (await page.evaluate(async (id) => (await fetch(`/api/calls/${id}`)).json(), callId)) as Record<string, unknown>;
    assert.equal(detail.direction, 'OUTGOING');
    assert.equal(detail.contactName, 'Maple Street Nursery');
    assert.equal(detail.phoneNumber, '+1 555 0100');
    await page.locator('ul.calls .meta', { hasText: 'Maple Street Nursery · outgoing' }).waitFor();
    // The list polls until the call is completed.
    // timeout 0: as long as recognition takes on this machine (the runner's timeout catches a hang).
    await page.locator('li.call .badge', { hasText: 'Completed' }).waitFor({ timeout: 0 });
    await shot(page, '02-calls-completed');
    await link.click();
    await page.getByRole('region', { name: 'Transcript' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/calls/${callId}`);
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, '03-call');
  });

  test('clicking a segment\'s text seeks the player to its start; the segment shows its speaker', async () => {
    const transcript = page.getByRole('region', { name: 'Transcript' });
    const segments = transcript.locator('li.segment');
    assert.ok((await segments.count()) >= 2);
    const target = segments.nth(1);
    const speaker = (await target.locator('.speaker').textContent())!.trim();
    assert.ok(speaker.length > 0);
    const start = await page.evaluate(async (id) => {
      const r = await fetch(`/api/calls/${id}/transcript`);
      return ((await r.json()) as { segments: Array<{ startSeconds: number }> }).segments[1].startSeconds;
    }, callId);
    // Functions, not strings: a string would be evaluated by the page, which its CSP forbids.
    await page.waitForFunction(() => (globalThis as any).document.querySelector('audio')?.readyState >= 1);
    await target.locator('.seg-text').click();
    await page.waitForFunction((t) => Math.abs((globalThis as any).document.querySelector('audio').currentTime - t) < 1, start);
    // Playing moves the highlight to that segment.
    await page.waitForFunction(() => (globalThis as any).document.querySelector('li.segment.current') !== null, undefined, { timeout: 10_000 });
  });

  test('a speaker is renamed through the transcript\'s speaker correction', async () => {
    const speakers = page.getByRole('region', { name: 'Speakers' });
    const first = speakers.getByLabel(/^Name of /).first();
    await first.fill('Garden Center');
    await speakers.getByRole('button', { name: 'Rename' }).first().click();
    await page.getByRole('region', { name: 'Transcript' }).locator('.speaker', { hasText: 'Garden Center' }).first().waitFor();
    const t = await page.evaluate(async (id) => (await fetch(`/api/calls/${id}/transcript`)).json(), callId);
    assert.ok((t as { speakers: Array<{ displayName: string }> }).speakers.some((s) => s.displayName === 'Garden Center'));
  });

  test('an action item is added, then marked done by its checkbox', async () => {
    const items = page.getByRole('region', { name: 'Action items' });
    await items.getByLabel('New action item').fill('Pay the soil invoice');
    await items.getByRole('button', { name: 'Add' }).click();
    const box = items.getByRole('checkbox', { name: 'Pay the soil invoice' });
    await box.check();
    await page.waitForFunction(async (id) => {
      const r = await fetch(`/api/calls/${id}/action-items`);
      return ((await r.json()) as Array<{ title: string; status: string }>).some((i) => i.title === 'Pay the soil invoice' && i.status === 'DONE');
    }, callId);
    await shot(page, '04-call-edited');
  });

  test('search finds the call and its hit links to the moment', async () => {
    await page.getByRole('link', { name: 'Search' }).click();
    const box = page.getByRole('searchbox');
    await box.fill('garden');
    await box.press('Enter');
    const hit = page.locator('.hits a', { hasText: /./ }).first();
    await hit.waitFor();
    assert.match((await hit.getAttribute('href'))!, new RegExp(callId));
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, '05-search');
  });

  test('action items, contacts, analytics and account pages open and work', async () => {
    await page.getByRole('link', { name: 'Action items' }).click();
    await page.getByRole('heading', { name: /^Done \(1\)/ }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, '06-actions');

    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByLabel('Name').fill('Robin Baker');
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.getByRole('cell', { name: 'Robin Baker', exact: true }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, '07-contacts');

    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { name: 'Sentiment per week' }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, '08-analytics');

    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Limits and usage' }).waitFor();
    await page.getByLabel('Your name (how calls name you)').fill('Robin Local');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('status').filter({ hasText: 'Name saved.' }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, '09-account');
  });

  test('the console answers loopback clients only in local mode (the socket address decides, not X-Forwarded-For)', async () => {
    // From this machine the page loads; a forwarded header claiming loopback changes nothing for a remote peer,
    // and a loopback peer claiming to be remote is still local: the check reads the socket.
    const r = await fetch(`${svc.url}/calls`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(r.status, 200);
  });
});

describe('console, identity-provider mode', () => {
  let svc: Awaited<ReturnType<typeof startService>>;
  let idp: TestIdp;
  let standIn: IdentityToolkitStandIn;
  let page: Page;

  before(async () => {
    idp = await TestIdp.start();
    standIn = await IdentityToolkitStandIn.start(idp);
    standIn.addAccount('ops@example.com', 'correct horse battery', { name: 'Ops Person' });
    svc = await startService({ ...idp.env(), ...standIn.env(), SERVICE_ADMIN_ALLOWED_EMAILS: 'ops@example.com', WORKER_ENABLED: 'false' });
    page = await browser.newPage();
  });
  after(async () => {
    await page?.close();
    await svc?.proc.kill('SIGTERM');
    await standIn?.stop();
    await idp?.stop();
    fs.rmSync(svc.dataDir, { recursive: true, force: true });
  });

  test('sign-in with the provider\'s web protocol, then an admin toggles a feature flag', async () => {
    await page.goto(`${svc.url}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await page.getByRole('note').count(), 0, 'no development banner outside local mode');
    assert.deepEqual(await axeViolations(page), []);
    await page.getByLabel('E-mail').fill('ops@example.com');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong e-mail or password.' }).waitFor();
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
    assert.equal(standIn.signIns, 2);

    await page.getByRole('link', { name: 'Admin' }).click();
    const flag = page.getByRole('checkbox', { name: 'billing_enabled' });
    await flag.waitFor();
    const before = await flag.isChecked();
    // The box changes at the click; the change is stored when the page's PATCH is answered.
    const stored = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/api/admin/feature-flags/billing_enabled'));
    await flag.setChecked(!before);
    assert.equal((await stored).status(), 200);
    assert.equal(await flag.isChecked(), !before);
    const token = await idp.token({ sub: 'checker', email: 'ops@example.com', email_verified: true });
    const flags = await (await fetch(`${svc.url}/api/admin/feature-flags`, { headers: { authorization: `Bearer ${token}` } })).json();
    assert.equal((flags as Array<{ flagKey: string; enabled: boolean }>).find((f) => f.flagKey === 'billing_enabled')?.enabled, !before);
    // The change is in the audit log, with who made it.
    await page.reload();
    await page.getByRole('region', { name: 'Audit log' }).getByRole('row').filter({ hasText: 'FLAG_TOGGLE' }).filter({ hasText: 'ops@example.com' }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, '10-admin');

    // The page never holds the API key or a token in its HTML.
    const html = await (await fetch(`${svc.url}/`)).text();
    assert.doesNotMatch(html, /eyJ[A-Za-z0-9_-]{10,}/);
  });
});
