import { ConfigurationError, InvalidFieldError, ToolEffect } from '@agent-ledger/domain';
import { Tool } from '../tools/tool.decorator';
import { ToolAbortedError, throwIfToolAborted } from '../tools/tool-aborted.error';
import { UserInputRequired } from '../tools/user-input-required';
import type { AgentLedgerPlugin } from './plugin';
import { definePlugin } from './plugin';

/**
 * What the service hands a plugin that exports a function rather than an
 * object: the service's own copies of what a plugin needs, so that a plugin
 * written in plain JavaScript, or without `@agent-ledger/*` installed beside
 * it, can declare tools. `Tool` is the decorator, applied as a function
 * (`Tool({...})(MyTool)`) where the language has no decorators.
 */
export interface PluginApi {
  readonly Tool: typeof Tool;
  readonly ToolEffect: typeof ToolEffect;
  readonly definePlugin: typeof definePlugin;
  readonly UserInputRequired: typeof UserInputRequired;
  readonly ToolAbortedError: typeof ToolAbortedError;
  readonly throwIfToolAborted: typeof throwIfToolAborted;
  readonly ConfigurationError: typeof ConfigurationError;
  readonly InvalidFieldError: typeof InvalidFieldError;
}

/**
 * A plugin module's export in the function form: `module.exports = (api) =>
 * api.definePlugin({...})` (or `export default`). It is called once, at
 * start-up, and may return a promise.
 */
export type PluginFactory = (api: PluginApi) => AgentLedgerPlugin | Promise<AgentLedgerPlugin>;

/** The {@link PluginApi} of this runtime. */
export const pluginApi: PluginApi = Object.freeze({
  Tool,
  ToolEffect,
  definePlugin,
  UserInputRequired,
  ToolAbortedError,
  throwIfToolAborted,
  ConfigurationError,
  InvalidFieldError,
});
