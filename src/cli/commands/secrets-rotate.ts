import type { Command } from '@commander-js/extra-typings';
import type { Deps } from '../../context.ts';
import type { Run } from './command.ts';

/**
 * `vouch secrets rotate`: seals every secret at rest with a new server key.
 * - With `SECRET_KEY` set (required on PostgreSQL): the operator first gives every instance
 *   `SECRET_KEY=new,old` (the first key seals, each opens), then runs this to seal everything with
 *   the new key, then drops the old one.
 * - On SQLite with the key file beside the database: a new key is generated, everything is sealed
 *   with it, and the file keeps only the new key. Restart a running server afterwards.
 */
export function addSecretsRotate(secrets: Command, run: Run): void {
  secrets
    .command('rotate')
    .description('seal every secret at rest with a new server key')
    .addHelpText(
      'after',
      `
With SECRET_KEY set (PostgreSQL): give every instance SECRET_KEY=new,old first, run this, then drop
the old key. On SQLite with the key file beside the database: a new key is generated and the file
keeps only it; restart running Vouch processes afterwards.`,
    )
    .action(() => run(rotateSecrets));
}

export async function rotateSecrets(deps: Deps) {
  const { SecretBox } = await import('../../core/secret-box.ts');
  const { sealWebhookSecrets } = await import('../../modules/webhooks/webhooks.service.ts');
  const { newSecretKey, readKeyFile, secretKeyFile, writeKeyFile } = await import('../../secret-key.ts');
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
}
