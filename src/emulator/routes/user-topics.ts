/** Emulator routes for user-topics. */
import type { Route } from '../context.js';

export const routes: Route[] = [];
