/** The live directory: per-credential users, channels, subscriptions and groups kept by events. */
export { Directory, type InvalidateReason } from './directory.js';
export { DirectoryRegistry, type DirectoryStats } from './registry.js';
export type { DirectoryClock, DirectoryCounters } from './counters.js';
export type { DirectoryEvent } from './data.js';
export {
  DIRECTORY_CLIENT_CAPABILITIES,
  DIRECTORY_EVENT_TYPES,
  DIRECTORY_FETCH_EVENT_TYPES,
  DIRECTORY_REGISTER_OPTIONS,
  snapshotFromRegister,
  type DirectorySnapshot,
} from './register.js';
