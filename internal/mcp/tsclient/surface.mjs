// The steps of client.mjs that check the protocol's surface rather than the
// play: the tools' schemas and arguments' bounds, the paged resource list, a
// zip handout's files, and what a plain HTTP POST gets.

import { check, isStr, opts, show, step, text, tool } from './lib.mjs';

// toolSteps lists the tools (exactly wantTools, with schemas the SDK
// compiles) and checks their arguments' bounds.
export async function toolSteps(mcp, wantTools) {
	await step('listTools', async () => {
		const tools = [];
		let cursor;
		do {
			const page = await mcp.listTools(cursor ? { cursor } : {}, opts);
			tools.push(...page.tools);
			cursor = page.nextCursor;
		} while (cursor);
		const names = tools.map((t) => t.name).sort();
		check(show(names) === show(wantTools), `tools ${show(names)}, want exactly ${show(wantTools)}`);
		for (const t of tools) {
			check(t.inputSchema?.type === 'object', `${t.name}: inputSchema ${show(t.inputSchema)}`);
			check(!show(t.inputSchema).includes('"null"'), `${t.name}: inputSchema has a null type: ${show(t.inputSchema)}`);
			check(t.outputSchema?.type === 'object', `${t.name}: outputSchema ${show(t.outputSchema)}`);
			check(isStr(t.description) && t.description.length >= 40, `${t.name}: description ${show(t.description)}`);
			// The SDK compiled the output schema (with ajv) and checks every
			// structuredContent of this tool against it from now on.
			check(typeof mcp.getToolOutputValidator(t.name) === 'function', `${t.name}: the SDK made no output validator`);
		}
		// A sanity check that this validation bites: an unknown outcome fails.
		const bogus = mcp.getToolOutputValidator('submit_flag')({ outcome: 'bogus', message: '', points: 0, newBadges: [] });
		check(!bogus.valid, 'the submit_flag output schema accepts outcome "bogus"');
		const lb = tools.find((t) => t.name === 'leaderboard').inputSchema.properties;
		check(lb.top.type === 'integer' && lb.top.minimum === 1 && lb.top.maximum === 100 &&
			lb.around.type === 'integer' && lb.around.minimum === 0 && lb.around.maximum === 25, `leaderboard's bounds ${show(lb)}`);
		return `${names.join(',')}; output schemas compiled by the SDK`;
	});

	await step('arguments out of range', async () => {
		const said = [];
		for (const [name, args, want] of [
			['leaderboard', { top: 0 }, 'top must be an integer from 1 to 100'],
			['leaderboard', { top: 101 }, 'top must be an integer from 1 to 100'],
			['leaderboard', { around: -1 }, 'around must be an integer from 0 to 25'],
			['leaderboard', { around: 26 }, 'around must be an integer from 0 to 25'],
			['list_challenges', { difficulty: 'Trivial' }, 'difficulty must be one of'],
			['list_challenges', { status: 'done' }, 'status must be one of'],
			['unlock_hint', { slug: 'warmup', id: 0 }, 'id must be an integer from 1 to 1000000'],
		]) {
			const res = await mcp.callTool({ name, arguments: args }, undefined, opts);
			check(res.isError === true && text(res).includes(want), `${name}(${show(args)}): ${show(res)}, want a tool error saying ${show(want)}`);
			said.push(text(res));
		}
		return said.join(' | ');
	});
}

// surfaceSteps runs them with client (connected with key) against url.
export async function surfaceSteps(client, { url, key, slug, fileURI, hiddenSlug, zipSlug, zipMember, zipContent }) {
	const mcp = client;
	await step('listResources', async () => {
		const uris = [];
		let cursor;
		let pages = 0;
		do {
			const page = await mcp.listResources(cursor ? { cursor } : {}, opts);
			pages++;
			for (const r of page.resources) {
				check(isStr(r.uri) && isStr(r.name) && r.name !== '', `malformed resource ${show(r)}`);
				uris.push(r.uri);
			}
			cursor = page.nextCursor;
		} while (cursor && pages < 100);
		for (const want of [`flagship://challenges/${slug}`, fileURI]) {
			check(uris.includes(want), `resources ${show(uris)} lack ${want}`);
		}
		check(new Set(uris).size === uris.length, `a resource is listed twice: ${show(uris)}`);
		if (hiddenSlug !== undefined) {
			check(!uris.some((u) => u.startsWith(`flagship://challenges/${hiddenSlug}`)), `a hidden challenge is listed: ${show(uris)}`);
		}
		return `${uris.length} resources in ${pages} page(s)`;
	});

	if (zipSlug !== undefined) {
		await step('zip handout members', async () => {
			const c = await tool(mcp, 'get_challenge', { slug: zipSlug });
			const m = c.file?.members?.find((x) => x.name === zipMember);
			check(m && isStr(m.url) && m.size === Buffer.byteLength(zipContent), `members ${show(c.file?.members)} lack ${zipMember}`);
			// A plain GET, no key: as an agent's shell would fetch it.
			const res = await fetch(m.url);
			const body = Buffer.from(await res.arrayBuffer());
			check(res.status === 200 && body.equals(Buffer.from(zipContent, 'utf8')), `GET ${m.url}: ${res.status} ${show(body.toString('utf8'))}`);
			for (const [h, want] of [['content-disposition', 'attachment'], ['x-content-type-options', 'nosniff'], ['cache-control', 'immutable']]) {
				check((res.headers.get(h) ?? '').includes(want), `GET ${m.url}: ${h} ${show(res.headers.get(h))}, want ${want}`);
			}
			return `${c.file.members.length} member(s); ${m.name} (${m.size} bytes) downloaded alone`;
		});
	}

	await step('POST accepting JSON alone', async () => {
		// What a plain HTTP client sends: JSON in, JSON out.
		const res = await fetch(url, {
			method: 'POST',
			headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json', Accept: 'application/json' },
			body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_challenges', arguments: {} } }),
		});
		const type = res.headers.get('content-type') ?? '';
		const body = await res.json();
		check(res.status === 200 && type.startsWith('application/json') && body.id === 1 && body.result?.structuredContent,
			`${res.status} ${type} ${show(body)}`);
		const get = await fetch(url, { headers: { Authorization: 'Bearer ' + key, Accept: 'text/event-stream' } });
		const err = await get.json();
		check(get.status === 405 && get.headers.get('allow') === 'POST' && isStr(err.error), `GET: ${get.status} ${show(err)}`);
		return `POST ${res.status} ${type}; GET ${get.status}: ${err.error}`;
	});
}
