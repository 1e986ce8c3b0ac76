export { createVouchMcpServer } from './server.ts';
export { type ToolName, toolOperations } from './tool-operations.ts';
