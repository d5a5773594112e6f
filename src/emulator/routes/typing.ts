/** Emulator routes for typing. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
