import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Vouch, VouchError } from '@vouch/sdk';
import { toolInputs } from './generated/tool-inputs.ts';
import {
  type ProgramTypeName,
  type ToolInputSchema,
  type ToolName,
  toolOperations,
} from './tool-operations.ts';
import { tools } from './tools.ts';

/** What the key may reach: the tools offered depend on the program's type and the key's scope. */
interface KeyAccess {
  programType: ProgramTypeName;
  scope: 'full' | 'read';
}

const toolNames = Object.keys(toolOperations) as ToolName[];

const isProgramType = (value: string): value is ProgramTypeName =>
  value === 'affiliate' || value === 'referral' || value === 'newsletter';

async function keyAccess(vouch: Vouch): Promise<KeyAccess> {
  const { program, key } = await vouch.program.key();
  const programType = program.type.toLowerCase();
  if (!isProgramType(programType)) throw new Error(`Vouch answered an unknown program type: ${program.type}`);
  return { programType, scope: key.scope };
}

/** The tool's input schema for the program's type, or none when the type has no such operation. */
function inputSchema(name: ToolName, programType: ProgramTypeName): ToolInputSchema | undefined {
  const input = toolInputs[name];
  return 'all' in input ? input.all : input.byProgramType[programType];
}

function offered(name: ToolName, access: KeyAccess): ToolInputSchema | undefined {
  if (access.scope === 'read' && toolOperations[name].access !== 'read') return undefined;
  return inputSchema(name, access.programType);
}

function errorResult(error: unknown): CallToolResult {
  let text: string;
  if (error instanceof VouchError) {
    const fields = Object.entries(error.errors).map(
      ([field, messages]) => `- ${field}: ${messages.join(' ')}`,
    );
    const status = error.status === 0 ? 'no answer' : `HTTP ${error.status}`;
    text = [`${error.message} (${status})`, ...fields].join('\n');
  } else {
    text = error instanceof Error ? error.message : String(error);
  }
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * An MCP server over one program's API. The tools are listed for the key it runs with: a
 * read-scope key is offered only the read tools. Every failure of a call, the API's errors
 * included, is answered as a tool error carrying the API's message; the server keeps running.
 */
export function createVouchMcpServer(vouch: Vouch, info = { name: 'vouch', version: '0.1.0' }): Server {
  let access: Promise<KeyAccess> | undefined;
  const currentAccess = () => {
    access ??= keyAccess(vouch).catch((error: unknown) => {
      access = undefined; // a failed check (Vouch down, say) is tried again on the next request
      throw error;
    });
    return access;
  };

  const server = new Server(info, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const key = await currentAccess();
    return {
      tools: toolNames.flatMap((name) => {
        const schema = offered(name, key);
        if (!schema) return [];
        const readOnly = toolOperations[name].access === 'read';
        return [
          {
            name,
            description: tools[name].description,
            inputSchema: schema,
            annotations: { readOnlyHint: readOnly },
          },
        ];
      }),
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = request.params.name;
    try {
      if (!(name in tools)) return errorResult(new Error(`Unknown tool: ${name}`));
      const toolName = name as ToolName;
      if (!offered(toolName, await currentAccess())) {
        return errorResult(new Error(`The tool ${name} is not available with this API key.`));
      }
      const result = await tools[toolName].run(vouch, request.params.arguments ?? {});
      return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }] };
    } catch (error) {
      return errorResult(error);
    }
  });

  return server;
}
