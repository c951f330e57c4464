"""Dataset versions in the admin: listed read-only (the sync and the importer create them);
on a dataset's page an admin picks which version and protocol its boards count."""

from django import forms
from django.contrib import admin

from leaderboard.identity import InvalidProtocol, Protocol
from leaderboard.models import Dataset, DatasetVersion

VERSION_FIELDS = ("dataset", "fingerprint", "train_size", "val_size", "test_size", "origin", "path", "created_at")


class DatasetAdminForm(forms.ModelForm):
    """``board_version`` offers only this dataset's versions; ``board_protocol`` must parse."""

    class Meta:
        model = Dataset
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "board_version" in self.fields:
            versions = DatasetVersion.objects.select_related("dataset")
            self.fields["board_version"].queryset = (
                versions.filter(dataset=self.instance) if self.instance.pk else versions.none()
            )

    def clean_board_protocol(self) -> str:
        try:
            return Protocol.parse(self.cleaned_data["board_protocol"].strip()).key
        except InvalidProtocol as exc:
            raise forms.ValidationError(str(exc)) from None


class DatasetVersionInline(admin.TabularInline):
    model = DatasetVersion
    fields = readonly_fields = ("fingerprint", "train_size", "val_size", "test_size", "origin", "path", "created_at")
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(DatasetVersion)
class DatasetVersionAdmin(admin.ModelAdmin):
    list_display = ("dataset", "short", "train_size", "val_size", "test_size", "origin", "created_at")
    list_filter = ("origin",)
    list_select_related = ("dataset",)
    search_fields = ("dataset__name", "fingerprint")
    readonly_fields = VERSION_FIELDS
    fields = VERSION_FIELDS

    def has_add_permission(self, request) -> bool:
        return False
