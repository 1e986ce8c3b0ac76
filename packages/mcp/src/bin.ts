#!/usr/bin/env node
// `vouch-mcp`: the Vouch MCP server over stdio, for the program of VOUCH_API_KEY at VOUCH_URL.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Vouch } from '@vouch/sdk';
import { createVouchMcpServer } from './server.ts';

const baseUrl = process.env.VOUCH_URL;
const apiKey = process.env.VOUCH_API_KEY;
if (!baseUrl || !apiKey) {
  // stdout carries the protocol: everything else goes to stderr.
  console.error(
    'vouch-mcp needs VOUCH_URL (where Vouch answers) and VOUCH_API_KEY (a vk_… key of the program).',
  );
  process.exit(1);
}

const server = createVouchMcpServer(new Vouch({ baseUrl, apiKey }));
await server.connect(new StdioServerTransport());
