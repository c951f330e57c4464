from django.db import migrations


def seed(apps, schema_editor):
    # data only (no model), read when the migration runs
    from leaderboard.registry.languages import LANGUAGE_NAMES, SEED_GROUPS, default_board

    Language = apps.get_model("leaderboard", "Language")
    LanguageGroup = apps.get_model("leaderboard", "LanguageGroup")
    for code, name in LANGUAGE_NAMES.items():
        Language.objects.get_or_create(code=code, defaults={"name": name, "board": default_board(code)})
    for slug, (name, boards) in SEED_GROUPS.items():
        LanguageGroup.objects.get_or_create(slug=slug, defaults={"name": name, "boards": boards})


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0001_initial")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
