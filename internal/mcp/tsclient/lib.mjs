// What the steps of client.mjs share: reading the environment, running and
// reporting a step, checking, and calling a tool.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const opts = { timeout: 15_000 };

export const env = (name, optional = false) => {
	const v = process.env[name];
	if (!optional && (v === undefined || v === '')) {
		fail('env', `${name} is not set`);
	}
	return v;
};

export function fail(step, message) {
	console.log(JSON.stringify({ step, ok: false, detail: message }));
	console.error(`tsclient: step ${step} failed: ${message}`);
	process.exit(1);
}

class CheckError extends Error {}

export function check(cond, message) {
	if (!cond) {
		throw new CheckError(message);
	}
}

export const show = (v) => JSON.stringify(v);

// step runs one step: fn returns the detail to print, or throws.
export async function step(name, fn) {
	let detail;
	try {
		detail = await fn();
	} catch (err) {
		let why = err instanceof CheckError ? err.message : `${err?.constructor?.name ?? 'Error'}: ${err?.message ?? err}`;
		if (err?.cause) {
			why += ` (cause: ${err.cause?.message ?? err.cause})`;
		}
		fail(name, why);
	}
	console.log(JSON.stringify({ step: name, ok: true, detail: detail ?? '' }));
	return detail;
}

// tool calls a tool and returns its structured content, failing on a tool
// error; the SDK itself checks it against the tool's outputSchema.
export async function tool(client, name, args = {}) {
	const res = await client.callTool({ name, arguments: args }, undefined, opts);
	check(!res.isError, `${name}(${show(args)}) is a tool error: ${text(res)}`);
	check(res.structuredContent && typeof res.structuredContent === 'object',
		`${name}(${show(args)}) has no structuredContent: ${show(res)}`);
	return res.structuredContent;
}

export function text(res) {
	return (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

export const isInt = (n) => Number.isInteger(n);
export const isStr = (s) => typeof s === 'string';
export const slugsOf = (l) => l.challenges.map((c) => c.slug);


export function checkList(l, what) {
	check(Array.isArray(l.challenges), `${what}: challenges is not an array: ${show(l)}`);
	check(l.count === l.challenges.length, `${what}: count ${l.count} but ${l.challenges.length} challenges`);
	for (const c of l.challenges) {
		check(isStr(c.slug) && isStr(c.title) && Array.isArray(c.categories) && isStr(c.difficulty) && isInt(c.points) &&
			isInt(c.solves) && typeof c.solved === 'boolean' && typeof c.unlocked === 'boolean' &&
			typeof c.hasFile === 'boolean' && typeof c.hasInstance === 'boolean', `${what}: malformed item ${show(c)}`);
	}
}

// connector connects clients to url, noting every HTTP exchange (so that an
// odd status shows in the last step) and every error the transport reports
// outside a request.
export function connector(url) {
	const exchanges = [];
	const transportErrors = [];

	async function connect(name, headers) {
		const transport = new StreamableHTTPClientTransport(url, {
			requestInit: { headers },
			fetch: async (input, init) => {
				const res = await fetch(input, init);
				exchanges.push(`${name} ${init?.method ?? 'GET'} ${res.status}`);
				return res;
			},
		});
		const client = new Client({ name: 'flagship-tsclient', version: '1.0.0' }, { capabilities: {} });
		client.onerror = (err) => transportErrors.push(`${name}: ${err?.message ?? err}`);
		await client.connect(transport, opts);
		return client;
	}
	return { connect, exchanges, transportErrors };
}
