/** Emulator routes for scheduled-messages. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
