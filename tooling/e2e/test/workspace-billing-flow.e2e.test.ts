import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { billing } from '@aqs/core';
import {
  browserAvailable,
  closeFlow,
  expectAccessible,
  layoutProblems,
  openFlow,
  openPerson,
  PASSWORD,
  register,
  screenshots,
  tokenFromEmail,
  uniqueEmail,
  type BrowserFlow,
  type RequestLog,
  type WebTestServer,
} from './support.ts';

let server: WebTestServer;
let flow: BrowserFlow | undefined;
/** The owner's browser. */
let page: Page;
let requests: RequestLog;
/** The invited person's browser (another context: other cookies, other storage). */
let member: { page: Page; requests: RequestLog } | undefined;
const pageErrors: string[] = [];

const OWNER_NAME = 'Olive Owner';
const MEMBER_NAME = 'Milo Member';
const TEAM = `${OWNER_NAME}'s workspace`;
const OWN = `${MEMBER_NAME}'s workspace`;

/** Follows a link of the left navigation. */
async function nav(p: Page, label: string) {
  await p.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: label }).click();
}

/** The API requests of a log since `from`, as `METHOD /path`. */
function sentSince(log: RequestLog, from: number): string[] {
  return log
    .api()
    .slice(from)
    .map((r) => `${r.method} ${r.path}`);
}

/** The value and maximum of a usage bar, found by its sentence. */
async function bar(p: Page, name: string): Promise<[number, number]> {
  const progress = p.getByRole('progressbar', { name, exact: true });
  return progress.evaluate((el) => [(el as HTMLProgressElement).value, (el as HTMLProgressElement).max]);
}

async function selectedWorkspace(p: Page): Promise<string | null> {
  return p.getByLabel('Workspace', { exact: true }).locator('option:checked').textContent();
}

describe.skipIf(!browserAvailable)('workspaces and billing in the browser', () => {
  beforeAll(async () => {
    flow = await openFlow();
    ({ server, page, requests } = flow);
    member = await openPerson(flow);
    for (const p of [page, member.page]) p.on('pageerror', (error) => pageErrors.push(String(error)));
  });

  afterAll(async () => {
    if (member) console.log(member.requests.report('workspace flow, the invited member'));
    await closeFlow(flow, 'workspace-billing', 'workspace flow, the owner');
  });

  it('puts the owner on Team, shows plan and usage, invites a member who registers and joins, switches workspaces, and removes them', async () => {
    const ownerEmail = uniqueEmail('owner');
    const memberEmail = uniqueEmail('member');
    const m = member!.page;
    const memberRequests = member!.requests;

    // --- the owner registers; the operator puts their workspace on Team (what `plans set` does) ---
    await register(page, server.url, OWNER_NAME, ownerEmail);
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    const change = await billing.setPlanByEmail(server.deps, ownerEmail, 'team');
    expect(change).toMatchObject({ previous: 'free', workspaceName: TEAM });
    const ownerMail = await server.lastEmail(ownerEmail, /Confirm/);
    await page.goto(`${server.url}/verify-email?token=${tokenFromEmail(ownerMail!.text)}`);
    await page.getByText('Your email address is confirmed.').waitFor();
    await page.getByRole('button', { name: 'Continue to the app' }).click();
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    // The shell's billing summary and workspace list went out in Ask's first batch: no request of their own.
    const askBatch = requests.api().find((r) => r.path.includes('billing.summary'));
    expect(askBatch?.path).toMatch(/auth\.workspaces/);
    expect(askBatch?.path).toMatch(/connections\.list/);
    const topbar = page.locator('header.topbar');
    await topbar.getByText(TEAM).waitFor();
    await topbar.getByText('Owner', { exact: true }).waitFor();
    await topbar.getByText('Team', { exact: true }).waitFor();
    // One workspace: no switcher yet.
    expect(await page.getByLabel('Workspace', { exact: true }).count()).toBe(0);

    // --- billing: plan, usage bars, plans compared; no checkout offered without Stripe ---
    let mark = requests.api().length;
    await nav(page, 'Billing');
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    await page.getByRole('heading', { name: /^Team plan/, level: 2 }).waitFor();
    expect(await bar(page, '0 of 25,000 questions this month')).toEqual([0, 25000]);
    expect(await bar(page, '0 of 500 AI schema analyses this month')).toEqual([0, 500]);
    expect(await bar(page, '0 of 100 active connections')).toEqual([0, 100]);
    expect(await bar(page, '1 of 25 seats taken')).toEqual([1, 25]);
    await page.getByText('Allowances renew on').first().waitFor();
    const plans = page.getByRole('table', { name: 'The limits of each plan' });
    const questionsRow = plans.getByRole('row', { name: /Questions per month/ });
    expect(await questionsRow.getByRole('cell').allTextContents()).toEqual(['200', '5,000', '25,000']);
    await page.getByText('Billing is not set up on this server').waitFor();
    await page.getByText(`npm run cli -- plans set --email ${ownerEmail} --plan team`).waitFor();
    expect(await page.getByRole('button', { name: /^Upgrade to/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Manage billing' }).count()).toBe(0);
    // The summary was cached by the shell: opening the page cost no request.
    expect(sentSince(requests, mark)).toEqual([]);
    await expectAccessible(page, 'billing (owner)');
    await screenshots(page, '50-billing-owner');

    // Back from Stripe's checkout: the message, then at most two reads of the summary, a few seconds apart.
    await page.evaluate(() => {
      window.history.pushState(null, '', '/billing?checkout=success');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.getByText('Payment received; the plan changes as soon as Stripe confirms it.').waitFor();
    mark = requests.api().length;
    await page.getByText('Stripe has not confirmed it yet.').waitFor({ timeout: 30_000 });
    // No third read follows.
    await page.waitForTimeout(1_500);
    expect(sentSince(requests, mark)).toEqual(['GET /trpc/billing.summary', 'GET /trpc/billing.summary']);
    await page.evaluate(() => {
      window.history.pushState(null, '', '/billing?checkout=cancelled');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.getByText('Nothing was charged and the plan did not change.').waitFor();

    // --- workspace: roster, seats, invite ---
    await nav(page, 'Workspace');
    await page.getByRole('heading', { name: 'Workspace', level: 1 }).waitFor();
    const roster = page.getByRole('table', { name: `Members of ${TEAM}` });
    await roster
      .getByRole('row', { name: new RegExp(ownerEmail) })
      .getByText('Owner', { exact: true })
      .waitFor();
    expect(await bar(page, '1 of 25 seats taken')).toEqual([1, 25]);
    await page.getByText('No pending invites.').waitFor();
    await expectAccessible(page, 'workspace (owner)');
    await page.getByLabel('Email address').fill(memberEmail);
    mark = requests.api().length;
    await page.getByRole('button', { name: 'Send invite' }).click();
    await page.getByText('Invite sent to').waitFor();
    const invites = page.getByRole('table', { name: 'Pending invites' });
    await invites.getByRole('row', { name: new RegExp(memberEmail) }).waitFor();
    await page.getByRole('progressbar', { name: '2 of 25 seats taken', exact: true }).waitFor();
    // One request: the roster and the seats are updated from the answer.
    expect(sentSince(requests, mark)).toEqual(['POST /trpc/workspace.invite']);
    await expectAccessible(page, 'workspace with a pending invite');
    await screenshots(page, '51-workspace-owner');

    // --- the invite link, from the outbox ---
    const inviteMail = await server.lastEmail(memberEmail, /invited/);
    // The link is `${APP_URL}/invite?token=…` (the test server's APP_URL is not its address: the path is opened here).
    expect(inviteMail?.text).toMatch(/\/invite\?token=[A-Za-z0-9_-]+/);
    const inviteToken = tokenFromEmail(inviteMail!.text);
    const invitePath = `/invite?token=${inviteToken}`;

    // --- the invited person opens it signed out, registers, confirms, comes back, joins ---
    await m.goto(`${server.url}${invitePath}`);
    await m.getByRole('heading', { name: 'Join a workspace' }).waitFor();
    await m
      .getByText(
        'You were invited to join a workspace: sign in or create an account with the address the invite was sent to.',
      )
      .waitFor();
    expect(
      new URL(
        await m.getByRole('link', { name: 'Sign in' }).evaluate((a) => (a as HTMLAnchorElement).href),
      ).searchParams.get('next'),
    ).toBe(invitePath);
    await expectAccessible(m, 'invite (signed out)');
    await screenshots(m, '52-invite-signed-out');
    await m.getByRole('link', { name: 'Create an account' }).click();
    await m.getByRole('heading', { name: 'Create your account' }).waitFor();
    expect(new URL(m.url()).searchParams.get('next')).toBe(invitePath);
    await m.getByLabel('Name', { exact: true }).fill(MEMBER_NAME);
    await m.getByLabel('Email', { exact: true }).fill(memberEmail);
    await m.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await m.getByRole('button', { name: 'Create account' }).click();
    await m.getByRole('heading', { name: 'Check your email' }).waitFor();
    await m.getByText('Your invite is waiting').waitFor();
    // The confirmation link (which could open in another tab) leads back to the invite.
    const memberMail = await server.lastEmail(memberEmail, /Confirm/);
    await m.goto(`${server.url}/verify-email?token=${tokenFromEmail(memberMail!.text)}`);
    await m.getByText('Your email address is confirmed.').waitFor();
    await m.getByRole('button', { name: 'Continue to the invite' }).click();
    await m.getByRole('button', { name: 'Join workspace' }).waitFor();
    expect(new URL(m.url()).pathname + new URL(m.url()).search).toBe(invitePath);
    // Opening the link sent nothing: only the button joins.
    expect(memberRequests.api().filter((r) => r.path.includes('acceptInvite'))).toEqual([]);
    await expectAccessible(m, 'invite (signed in)');
    await screenshots(m, '53-invite-signed-in');
    mark = memberRequests.api().length;
    await m.getByRole('button', { name: 'Join workspace' }).click();
    await m.getByText(`You joined ${TEAM}.`).waitFor();

    // --- the member's view: the workspace, its owner, no owner-only controls; the switcher lists both ---
    await m.getByRole('button', { name: 'Open the workspace' }).click();
    await m.getByRole('heading', { name: TEAM, level: 2 }).waitFor();
    // Joining read `me`, the shell's data and the workspace in one batch; opening it cost nothing more.
    const afterJoin = sentSince(memberRequests, mark);
    expect(afterJoin[0]).toBe('POST /trpc/workspace.acceptInvite');
    expect(afterJoin.length).toBe(2);
    for (const procedure of ['auth.me', 'billing.summary', 'auth.workspaces', 'workspace.get'])
      expect(afterJoin[1]).toContain(procedure);
    await m.getByText(`${OWNER_NAME} (${ownerEmail})`).waitFor();
    await m.getByRole('button', { name: 'Leave workspace' }).waitFor();
    expect(await m.getByRole('button', { name: 'Send invite' }).count()).toBe(0);
    expect(await m.getByLabel('Email address').count()).toBe(0);
    expect(await m.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    expect(await m.getByRole('button', { name: /^Revoke / }).count()).toBe(0);
    const switcher = m.getByLabel('Workspace', { exact: true });
    expect(await switcher.locator('option').allTextContents()).toEqual([
      `${OWN} (owner)`,
      `${TEAM} (member)`,
    ]);
    expect(await selectedWorkspace(m)).toBe(`${TEAM} (member)`);
    await m.locator('header.topbar').getByText('Member', { exact: true }).waitFor();
    await expectAccessible(m, 'workspace (member)');
    await screenshots(m, '54-workspace-member');

    await nav(m, 'Billing');
    await m.getByRole('heading', { name: /^Team plan/, level: 2 }).waitFor();
    await m.getByText('Only the owner can change the plan.').waitFor();
    expect(await m.getByRole('button', { name: /^Upgrade to|Manage billing/ }).count()).toBe(0);
    expect(await m.getByText('Billing is not set up on this server').count()).toBe(0);
    expect(await bar(m, '2 of 25 seats taken')).toEqual([2, 25]);
    await expectAccessible(m, 'billing (member)');
    await screenshots(m, '55-billing-member');

    // --- switching: to their own workspace (Ask opens with its data), and back ---
    await switcher.selectOption({ label: `${OWN} (owner)` });
    mark = memberRequests.api().length;
    // Ask reads the chosen connection's saved questions once it knows the connection: wait for that
    // answer before leaving, so that what the switch cost is the same on a fast or a slow machine.
    const savedQuestions = m.waitForResponse((r) => r.url().includes('/trpc/templates.list'));
    await m.getByRole('button', { name: 'Switch workspace' }).click();
    await m.waitForURL(/\/ask$/);
    await m.locator('header.topbar').getByText('Owner', { exact: true }).waitFor();
    expect(await selectedWorkspace(m)).toBe(`${OWN} (owner)`);
    await savedQuestions;
    await nav(m, 'Connections');
    await m.getByRole('link', { name: 'New connection' }).waitFor();
    // The switch, then one batch for what the new workspace's screens show (and Ask's saved
    // questions of the chosen connection, which need its id): nothing read piecemeal.
    const afterSwitch = sentSince(memberRequests, mark);
    expect(afterSwitch[0]).toBe('POST /trpc/auth.selectWorkspace');
    expect(afterSwitch[1]).toMatch(/billing\.summary/);
    // The workspace list and `me` came with the switch's answer.
    expect(afterSwitch[1]).not.toMatch(/auth\.(workspaces|me)/);
    expect(afterSwitch[1]).toMatch(/connections\.list/);
    expect(afterSwitch.slice(2)).toEqual(['GET /trpc/templates.list']);

    await switcher.selectOption({ label: `${TEAM} (member)` });
    await m.getByRole('button', { name: 'Switch workspace' }).click();
    await m.waitForURL(/\/ask$/);
    await m.locator('header.topbar').getByText('Member', { exact: true }).waitFor();
    await nav(m, 'Connections');
    await m.getByText('You are a member of this workspace').waitFor();
    await m.getByRole('button', { name: /^Ask / }).first().waitFor();
    expect(await m.getByRole('link', { name: 'New connection' }).count()).toBe(0);
    expect(await m.getByText('More', { exact: true }).count()).toBe(0);
    await expectAccessible(m, 'connections (member)');

    // --- the owner sees the member, cannot invite them twice, and removes them ---
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await roster
      .getByRole('row', { name: new RegExp(memberEmail) })
      .getByText('Member', { exact: true })
      .waitFor();
    await page.getByText('No pending invites.').waitFor();
    await page.getByLabel('Email address').fill(memberEmail);
    await page.getByRole('button', { name: 'Send invite' }).click();
    await page.getByText(`${memberEmail} is already a member of this workspace.`).waitFor();
    await page.getByRole('button', { name: `Remove ${MEMBER_NAME}` }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${MEMBER_NAME}?` });
    await dialog.waitFor();
    await expectAccessible(page, 'remove a member');
    await screenshots(page, '56-remove-member');
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await page.getByText(`${MEMBER_NAME} was removed from the workspace.`).waitFor();
    expect(await roster.getByRole('row', { name: new RegExp(memberEmail) }).count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('members-title');
    expect(await bar(page, '1 of 25 seats taken')).toEqual([1, 25]);

    // --- the member's next request works in their own workspace again ---
    await m.reload();
    await m.locator('header.topbar').getByText(OWN).waitFor();
    await m.locator('header.topbar').getByText('Owner', { exact: true }).waitFor();
    expect(await m.getByLabel('Workspace', { exact: true }).count()).toBe(0);
    expect(await m.getByText(TEAM).count()).toBe(0);
    await nav(m, 'Workspace');
    await m.getByRole('heading', { name: 'Workspace', level: 1 }).waitFor();
    await m.getByText('Inviting people needs the Team plan').waitFor();
    // The form itself is off (not just its button for want of an address).
    expect(await m.getByLabel('Email address').isDisabled()).toBe(true);
    expect(await m.getByRole('button', { name: 'Send invite' }).isDisabled()).toBe(true);
    await m.getByRole('link', { name: 'See the plans on Billing' }).waitFor();
    await expectAccessible(m, 'workspace (own, free plan)');

    const ownerPeak = requests.peakPerMinute();
    const memberPeak = memberRequests.peakPerMinute();
    console.log(
      `[web e2e] workspace flow: peak ${ownerPeak} (owner) and ${memberPeak} (member) API requests in a minute`,
    );
    expect(ownerPeak).toBeLessThanOrEqual(20);
    expect(memberPeak).toBeLessThanOrEqual(20);
    expect(layoutProblems).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
