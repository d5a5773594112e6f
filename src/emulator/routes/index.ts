/** Every resource module of the emulator; app.ts registers their routes and register builds state from them. */
import type { ResourceModule } from '../context.js';
import * as events from './events.js';
import { stateModules } from './resources.js';

export const resourceModules: ResourceModule[] = [events, ...stateModules];
