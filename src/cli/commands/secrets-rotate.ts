import { SecretBox } from '../../core/secret-box.ts';
import { sealWebhookSecrets } from '../../modules/webhooks/webhooks.service.ts';
import { newSecretKey, readKeyFile, secretKeyFile, writeKeyFile } from '../../secret-key.ts';
import { type Command, options } from './command.ts';

/**
 * `vouch secrets rotate`: seals every secret at rest with a new server key.
 * - With `SECRET_KEY` set (required on PostgreSQL): the operator first gives every instance
 *   `SECRET_KEY=new,old` (the first key seals, each opens), then runs this to seal everything with
 *   the new key, then drops the old one.
 * - On SQLite with the key file beside the database: a new key is generated, everything is sealed
 *   with it, and the file keeps only the new key. Restart a running server afterwards.
 */
export const secretsRotate: Command = {
  name: 'secrets rotate',
  async run(deps, args) {
    options(args, {});
    const file = secretKeyFile(deps.config.databaseUrl);
    if (deps.config.secretKeys.length > 0 || !file) {
      return { resealed: await sealWebhookSecrets(deps), sealed_with: 'the first key of SECRET_KEY' };
    }
    const keys = [newSecretKey(), ...readKeyFile(file)];
    // Both keys are on disk before any secret is sealed with the new one: a crash midway loses nothing.
    writeKeyFile(file, keys);
    const resealed = await sealWebhookSecrets({ ...deps, secrets: new SecretBox(keys) });
    writeKeyFile(file, keys.slice(0, 1));
    return { resealed, key_file: file, restart: 'restart running Vouch processes to use the new key' };
  },
};
