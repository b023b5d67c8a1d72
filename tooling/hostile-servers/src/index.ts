export { startHostileServer, GARBAGE, type Behaviour, type HostileServer, type HostileSocket, type HostileStats } from './tcp.ts';
