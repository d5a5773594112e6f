/** Emulator routes for drafts. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
