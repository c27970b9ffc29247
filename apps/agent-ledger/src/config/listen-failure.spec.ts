import { listenFailureMessage } from './listen-failure';

const errno = (code: string) => Object.assign(new Error(code), { code });

describe('listenFailureMessage', () => {
  it('names PORT for a port in use, HOST for an address that is not this machine, PORT for a privileged port', () => {
    expect(listenFailureMessage(errno('EADDRINUSE'), { host: '127.0.0.1', port: 3000 })).toBe(
      'cannot listen on 127.0.0.1:3000: the port is in use by another process; set PORT (or server.port in the configuration file) to a free port, or 0 for any free port',
    );
    expect(listenFailureMessage(errno('EADDRNOTAVAIL'), { host: '10.9.8.7', port: 3000 })).toContain('set HOST (or server.host)');
    expect(listenFailureMessage(errno('EACCES'), { host: '::1', port: 80 })).toBe('cannot listen on [::1]:80: this user may not bind port 80; set PORT (or server.port) to 1024 or above');
  });

  it('leaves any other error alone', () => {
    expect(listenFailureMessage(new Error('boom'), { host: '127.0.0.1', port: 3000 })).toBeNull();
    expect(listenFailureMessage(errno('ENOMEM'), { host: '127.0.0.1', port: 3000 })).toBeNull();
  });
});
