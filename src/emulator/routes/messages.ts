/** Emulator routes for messages. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
