// A client of Flagship's MCP endpoint written on the official TypeScript
// SDK, as an agent nobody here wrote would be: it plays one challenge
// through every tool, resource and prompt, and checks each answer. It is run
// by internal/mcp's TestTypeScriptSDKClient, which owns the data and passes
// it in the environment:
//
//   MCP_URL           the endpoint, e.g. http://127.0.0.1:8080/mcp
//   MCP_KEY           an API key of a player who has not solved MCP_SLUG
//   MCP_RO_KEY        a read-only API key (sent as X-API-Key)
//   MCP_SLUG          an unlocked challenge with a file
//   MCP_FLAG          its flag
//   MCP_FILE_CONTENT  the exact bytes of its file (UTF-8 text)
//   MCP_USER          a player whose profile get_profile reads
//   MCP_DESCRIPTION   (optional) the challenge's exact description
//   MCP_WRITEUP_AUTHOR (optional) who wrote an approved writeup of it
//   MCP_FLAG_FORMAT   the flag format get_challenge tells for MCP_SLUG
//   MCP_RATE_LIMIT    the wrong flags a player may send per challenge per window
//   MCP_HIDDEN_SLUG   (optional) a hidden challenge, which no list may show
//   MCP_ZIP_SLUG      (optional) a challenge whose file is a zip, with
//   MCP_ZIP_MEMBER    a file inside it and
//   MCP_ZIP_CONTENT   that file's exact bytes (UTF-8 text)
//
// Each step prints one JSON line {step, ok, detail} on stdout; the first
// failed check prints its line, says why on stderr and exits 1.
// Shared helpers: lib.mjs; the protocol's surface: surface.mjs.

import { check, checkList, connector, env, isInt, isStr, opts, show, slugsOf, step, text, tool } from './lib.mjs';
import { surfaceSteps, toolSteps } from './surface.mjs';

const url = new URL(env('MCP_URL'));
const key = env('MCP_KEY');
const roKey = env('MCP_RO_KEY');
const slug = env('MCP_SLUG');
const flag = env('MCP_FLAG');
const fileContent = Buffer.from(env('MCP_FILE_CONTENT'), 'utf8');
const user = env('MCP_USER');
const description = env('MCP_DESCRIPTION', true);
const writeupAuthor = env('MCP_WRITEUP_AUTHOR', true);
const flagFormat = env('MCP_FLAG_FORMAT');
const rateLimit = Number(env('MCP_RATE_LIMIT'));
const hiddenSlug = env('MCP_HIDDEN_SLUG', true);
const zipSlug = env('MCP_ZIP_SLUG', true);
const zipMember = env('MCP_ZIP_MEMBER', true);
const zipContent = env('MCP_ZIP_CONTENT', true);

const { connect, exchanges, transportErrors } = connector(url);

const wantTools = ['extend_instance', 'get_challenge', 'get_profile', 'get_writeups', 'instance_status', 'leaderboard', 'list_challenges', 'list_hints',
	'my_profile', 'start_instance', 'stop_instance', 'submit_flag', 'unlock_hint'];
const fileURI = `flagship://challenges/${slug}/file`;

let mcp;
await step('connect', async () => {
	const c = (mcp = await connect('bearer', { Authorization: 'Bearer ' + key }));
	const info = c.getServerVersion();
	const caps = c.getServerCapabilities() ?? {};
	check(info?.name === 'flagship', `serverInfo ${show(info)}, want name flagship`);
	check(caps.tools && caps.resources && caps.prompts, `capabilities ${show(caps)} lack tools, resources or prompts`);
	// The server sends no notification (stateless, JSON answers, no GET
	// stream): it must not advertise any.
	check(!caps.tools.listChanged && !caps.resources.listChanged && !caps.prompts.listChanged && !caps.resources.subscribe,
		`capabilities ${show(caps)} advertise notifications the server never sends`);
	check(caps.logging === undefined, `capabilities ${show(caps)} advertise logging`);
	check(isStr(c.getInstructions()) && c.getInstructions().includes('submit_flag'), `instructions ${show(c.getInstructions())}`);
	return `server ${info.name} ${info.version}, protocol ${c.transport?.protocolVersion ?? '?'}`;
});

await toolSteps(mcp, wantTools);

let item;
await step('list_challenges', async () => {
	const l = await tool(mcp, 'list_challenges');
	checkList(l, 'list_challenges');
	item = l.challenges.find((c) => c.slug === slug);
	check(item, `${slug} is not listed: ${show(slugsOf(l))}`);
	check(item.hasFile && item.unlocked && !item.solved, `${slug}: ${show(item)}, want hasFile, unlocked, not solved`);
	return `${l.count} challenges: ${slugsOf(l).join(',')}`;
});

await step('list_challenges filtered', async () => {
	// The category in capitals: the filter ignores case.
	const category = item.categories[0];
	const args = { category: category.toUpperCase(), status: 'unsolved' };
	const l = await tool(mcp, 'list_challenges', args);
	checkList(l, 'list_challenges filtered');
	check(slugsOf(l).includes(slug), `${show(args)} lacks ${slug}: ${show(slugsOf(l))}`);
	for (const c of l.challenges) {
		check(c.categories.some((x) => x.toLowerCase() === category.toLowerCase()) && !c.solved,
			`${show(args)} returned ${show(c)}`);
	}
	const solved = await tool(mcp, 'list_challenges', { status: 'solved' });
	check(!slugsOf(solved).includes(slug), `status solved lists ${slug} before it is solved`);
	return `${show(args)}: ${slugsOf(l).join(',')}`;
});

let challenge;
await step('get_challenge', async () => {
	challenge = await tool(mcp, 'get_challenge', { slug });
	const c = challenge;
	check(c.slug === slug && isStr(c.title) && c.title !== '', `slug/title ${show([c.slug, c.title])}`);
	check(isStr(c.description) && c.description !== '', `description ${show(c.description)}`);
	if (description !== undefined) {
		check(c.description === description, `description ${show(c.description)}, want ${show(description)}`);
	}
	check(c.solved === false && c.submittedFlag === null && c.unlocked === true, `progress ${show(c)}`);
	check(Array.isArray(c.prerequisitesLeft) && c.prerequisitesLeft.length === 0, `prerequisitesLeft ${show(c.prerequisitesLeft)}`);
	check(c.file && isStr(c.file.name) && isStr(c.file.url), `file ${show(c.file)}`);
	check(c.file.size === fileContent.length, `file.size ${c.file.size}, want ${fileContent.length}`);
	check(c.file.resource === fileURI, `file.resource ${show(c.file.resource)}, want ${fileURI}`);
	check(isInt(c.points) && c.points > 0 && isInt(c.solves) && isInt(c.attempts), `counts ${show(c)}`);
	check(c.flagFormat === flagFormat, `flagFormat ${show(c.flagFormat)}, want ${show(flagFormat)}`);
	check(c.attemptsLeft === rateLimit && c.attemptsResetAt === undefined,
		`attemptsLeft ${show(c.attemptsLeft)}, attemptsResetAt ${show(c.attemptsResetAt)}; want ${rateLimit} and none before any try`);
	return `${c.title}: ${c.points} points, flag format ${c.flagFormat}, ${c.attemptsLeft} tries, file ${c.file.name} (${c.file.size} bytes, ${c.file.resource})`;
});

await step('listResourceTemplates', async () => {
	const res = await mcp.listResourceTemplates({}, opts);
	const uris = res.resourceTemplates.map((t) => t.uriTemplate);
	for (const want of ['flagship://challenges/{slug}', 'flagship://challenges/{slug}/file']) {
		check(uris.includes(want), `templates ${show(uris)} lack ${want}`);
	}
	return uris.join(' ');
});

await step('readResource challenge', async () => {
	const uri = `flagship://challenges/${slug}`;
	const res = await mcp.readResource({ uri }, opts);
	check(res.contents?.length === 1, `contents ${show(res.contents)}`);
	const c = res.contents[0];
	check(c.uri === uri && c.mimeType === 'text/markdown' && isStr(c.text), `content ${show(c)}`);
	check(c.text.includes(`# ${challenge.title}`) && c.text.includes(challenge.description) && c.text.includes(fileURI),
		`the Markdown lacks the title, description or file resource:\n${c.text}`);
	return `${c.mimeType}, ${c.text.length} characters`;
});

await step('readResource file', async () => {
	const res = await mcp.readResource({ uri: fileURI }, opts);
	check(res.contents?.length === 1, `contents ${show(res.contents)}`);
	const c = res.contents[0];
	check(c.uri === fileURI && isStr(c.blob) && c.text === undefined, `content ${show(c)}, want a blob`);
	const bytes = Buffer.from(c.blob, 'base64');
	check(bytes.equals(fileContent), `blob decodes to ${show(bytes.toString('utf8'))}, want ${show(fileContent.toString('utf8'))}`);
	check(isStr(c.mimeType) && c.mimeType !== '', `mimeType ${show(c.mimeType)}`);
	return `${c.mimeType}, ${bytes.length} bytes as expected`;
});

await step('getPrompt event_rules', async () => {
	const p = await mcp.getPrompt({ name: 'event_rules' }, opts);
	const m = p.messages?.[0];
	check(m?.role === 'user' && m.content?.type === 'text', `messages ${show(p.messages)}`);
	for (const want of ['submit_flag', 'rate_limited', 'first blood', 'flagFormat']) {
		check(m.content.text.includes(want), `the rules do not say ${show(want)}:\n${m.content.text}`);
	}
	return `${p.description}: ${m.content.text.length} characters`;
});

await step('get_writeups before solving', async () => {
	const res = await mcp.callTool({ name: 'get_writeups', arguments: { slug } }, undefined, opts);
	check(res.isError === true && text(res).includes('solve'), `got ${show(res)}, want a tool error saying to solve it first`);
	return text(res);
});

await step('submit_flag wrong', async () => {
	const o = await tool(mcp, 'submit_flag', { slug, flag: `${flag}-not-it` });
	check(o.outcome === 'wrong' && isStr(o.message) && o.message !== '', `got ${show(o)}, want outcome wrong`);
	check(o.attemptsLeft === rateLimit - 1 && isStr(o.attemptsResetAt) && !Number.isNaN(Date.parse(o.attemptsResetAt)),
		`attemptsLeft ${show(o.attemptsLeft)}, attemptsResetAt ${show(o.attemptsResetAt)}; want ${rateLimit - 1} and a time`);
	const c = await tool(mcp, 'get_challenge', { slug });
	check(c.attemptsLeft === rateLimit - 1 && c.attemptsResetAt === o.attemptsResetAt,
		`get_challenge after it: attemptsLeft ${show(c.attemptsLeft)}, attemptsResetAt ${show(c.attemptsResetAt)}`);
	return o.message;
});

let earned;
await step('submit_flag right', async () => {
	// Surrounding spaces are ignored.
	const o = await tool(mcp, 'submit_flag', { slug, flag: `  ${flag} ` });
	check(o.outcome === 'correct' && isInt(o.points) && o.points > 0 && Array.isArray(o.newBadges),
		`got ${show(o)}, want outcome correct with points`);
	check(o.points === challenge.points, `points ${o.points}, want the challenge's ${challenge.points}`);
	earned = o.points;
	return `${o.message} badges: ${o.newBadges.map((b) => b.id).join(',') || 'none'}`;
});

await step('submit_flag again', async () => {
	const o = await tool(mcp, 'submit_flag', { slug, flag });
	check(o.outcome === 'already_solved', `got ${show(o)}, want outcome already_solved`);
	return o.message;
});

await step('submit_flag unknown slug', async () => {
	const o = await tool(mcp, 'submit_flag', { slug: `${slug}-no-such-challenge`, flag });
	check(o.outcome === 'not_found', `got ${show(o)}, want outcome not_found`);
	return o.message;
});

await step('get_challenge solved', async () => {
	const c = await tool(mcp, 'get_challenge', { slug });
	check(c.solved === true && c.submittedFlag === flag && c.solves === challenge.solves + 1,
		`solved ${c.solved}, submittedFlag ${show(c.submittedFlag)}, solves ${c.solves} (was ${challenge.solves})`);
	const l = await tool(mcp, 'list_challenges', { status: 'solved' });
	check(slugsOf(l).includes(slug), `status solved lacks ${slug}: ${show(slugsOf(l))}`);
	return `solves ${c.solves}, attempts ${c.attempts}`;
});

await step('get_writeups', async () => {
	const w = await tool(mcp, 'get_writeups', { slug });
	check(w.slug === slug && w.title === challenge.title && Array.isArray(w.writeups), `got ${show(w)}`);
	for (const x of w.writeups) {
		check(isStr(x.title) && isStr(x.author) && isStr(x.status) && isStr(x.content) && isStr(x.updatedAt), `writeup ${show(x)}`);
	}
	if (writeupAuthor !== undefined) {
		check(w.writeups.some((x) => x.author === writeupAuthor && x.status === 'approved'),
			`no approved writeup by ${writeupAuthor}: ${show(w.writeups)}`);
	}
	return `${w.writeups.length} writeup(s) by ${w.writeups.map((x) => x.author).join(',')}`;
});

let me;
await step('my_profile', async () => {
	me = await tool(mcp, 'my_profile');
	check(isStr(me.id) && isStr(me.username) && me.username !== '', `id/username ${show([me.id, me.username])}`);
	check(isInt(me.points) && me.points >= earned && isInt(me.rank) && me.rank > 0, `points ${me.points}, rank ${me.rank}`);
	check(Array.isArray(me.solves) && me.solves[0]?.slug === slug, `solves ${show(me.solves)}, want ${slug} first`);
	check(Array.isArray(me.badges) && me.categoryCounts && me.difficultyCounts, `badges/counts ${show(me)}`);
	return `${me.username}: rank ${me.rank}, ${me.points} points, ${me.solves.length} solve(s), ${me.badges.length} badge(s)`;
});

await step('leaderboard', async () => {
	const lb = await tool(mcp, 'leaderboard', { top: 5, around: 1 });
	check(isInt(lb.players) && lb.players > 0 && Array.isArray(lb.top) && lb.top.length > 0 && lb.top.length <= 5,
		`players ${lb.players}, top ${show(lb.top)}`);
	check(lb.top.every((p, i) => p.rank >= 1 && isStr(p.username) && isInt(p.points) && (i === 0 || p.rank >= lb.top[i - 1].rank)),
		`top not ranked: ${show(lb.top)}`);
	check(lb.myRank === me.rank, `myRank ${lb.myRank}, my_profile says rank ${me.rank}`);
	check(Array.isArray(lb.around) && lb.around.some((p) => p.username === me.username && p.rank === lb.myRank),
		`around ${show(lb.around)} lacks ${me.username}`);
	return `${lb.players} players, myRank ${lb.myRank}, top ${lb.top.map((p) => `${p.rank}.${p.username}`).join(' ')}`;
});

await step('get_profile', async () => {
	const p = await tool(mcp, 'get_profile', { user });
	check(p.username.toLowerCase() === user.toLowerCase(), `username ${show(p.username)}, want ${user}`);
	check(isStr(p.id) && isInt(p.points) && isInt(p.rank) && Array.isArray(p.solves) && Array.isArray(p.badges), `got ${show(p)}`);
	const res = await mcp.callTool({ name: 'get_profile', arguments: { user: `${user}-nobody-such` } }, undefined, opts);
	check(res.isError === true, `an unknown player: ${show(res)}, want a tool error`);
	return `${p.username}: rank ${p.rank}, ${p.points} points, ${p.solves.length} solve(s)`;
});

await surfaceSteps(mcp, { url, key, slug, fileURI, hiddenSlug, zipSlug, zipMember, zipContent });

let ro;
await step('read-only connect', async () => {
	ro = await connect('read-only', { 'X-API-Key': roKey });
	return 'X-API-Key';
});

await step('read-only list_challenges', async () => {
	const l = await tool(ro, 'list_challenges');
	checkList(l, 'read-only list_challenges');
	check(slugsOf(l).includes(slug), `lacks ${slug}: ${show(slugsOf(l))}`);
	return `${l.count} challenges`;
});

await step('read-only submit_flag', async () => {
	const res = await ro.callTool({ name: 'submit_flag', arguments: { slug, flag } }, undefined, opts);
	check(res.isError === true && text(res).includes('read-only'), `got ${show(res)}, want isError with "read-only"`);
	return text(res);
});

await step('close', async () => {
	await mcp.close();
	await ro.close();
	check(transportErrors.length === 0, `the transport reported errors: ${transportErrors.join('; ')}`);
	const counts = {};
	for (const e of exchanges) {
		counts[e] = (counts[e] ?? 0) + 1;
	}
	return counts;
});
