// ZooKeeper connect strings as Kafka's `zookeeper.connect` takes them:
// `host:port[,host:port...][/chroot/path]`. Checked here because node-zookeeper-client turns a
// bad one into an assertion failure or a connection attempt to port NaN.

export interface ZkServerAddress {
  readonly host: string;
  readonly port: number;
}

export interface ParsedConnectString {
  readonly servers: readonly ZkServerAddress[];
  /** The host list as given, without the chroot (`127.0.0.1:2181,127.0.0.1:2182`). */
  readonly hosts: string;
  /** `/a/b`, or null when the whole tree is used. */
  readonly chroot: string | null;
}

export const ZK_DEFAULT_PORT = 2181;

export function parseConnectString(connectString: string): ParsedConnectString {
  const bad = (why: string): Error =>
    new Error(`invalid ZooKeeper connect string ${JSON.stringify(connectString)}: ${why}`);
  const s = connectString.trim();
  const slash = s.indexOf('/');
  const hosts = slash < 0 ? s : s.slice(0, slash);
  let chroot: string | null = slash < 0 ? null : s.slice(slash);
  if (chroot === '/') chroot = null;
  if (chroot !== null) {
    if (chroot.endsWith('/')) throw bad('the chroot must not end with "/"');
    for (const seg of chroot.slice(1).split('/')) {
      if (seg === '' || seg === '.' || seg === '..') throw bad(`bad chroot segment ${JSON.stringify(seg)}`);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: ZooKeeper rejects these in paths
      if (/[\u0000-\u001f\u007f]/.test(seg)) throw bad('the chroot contains control characters');
    }
  }
  if (hosts === '') throw bad('no host');
  const servers = hosts.split(',').map((entry): ZkServerAddress => {
    const e = entry.trim();
    if (e === '') throw bad('empty host entry');
    // node-zookeeper-client splits entries at ':', so an IPv6 literal cannot reach it intact.
    if (e.startsWith('[')) throw bad('IPv6 literals are not supported here; use a host name');
    // host:port, or host alone (port 2181)
    const m = /^([^:[\]]+)(?::(\d+))?$/.exec(e);
    if (!m) throw bad(`cannot read host:port from ${JSON.stringify(e)}`);
    const port = m[2] === undefined ? ZK_DEFAULT_PORT : Number(m[2]);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw bad(`bad port in ${JSON.stringify(e)}`);
    return { host: m[1]!, port };
  });
  return { servers, hosts, chroot };
}

/** The normalized connect string handed to node-zookeeper-client. */
export function libraryConnectString(p: ParsedConnectString, withChroot = true): string {
  const hosts = p.servers.map((s) => `${s.host}:${s.port}`).join(',');
  return withChroot && p.chroot !== null ? hosts + p.chroot : hosts;
}
